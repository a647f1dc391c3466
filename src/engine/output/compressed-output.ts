import type { Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import type { ChunkWriter } from '../executor/extraction-executor.js';
import { GZIP_LEVEL, ZSTD_LEVEL, type OutputCompression } from '../formats/output-format.js';

function compressor(compression: Exclude<OutputCompression, 'none'>): Transform {
  if (compression === 'gzip') return zlib.createGzip({ level: GZIP_LEVEL });
  return zlib.createZstdCompress({ params: { [zlib.constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } });
}

/**
 * Compresses what is written on the way to `out` (the sealer: what is signed and stored is the
 * compressed file a consumer downloads). A write resolves once zlib has consumed the chunk, and zlib
 * stops consuming while `out` is busy, so memory stays at zlib's window plus one chunk either side.
 */
export class CompressedOutput implements ChunkWriter {
  private readonly stream: Transform;
  private readonly pumped: Promise<void>;
  private failure: { error: unknown } | undefined;

  constructor(
    compression: Exclude<OutputCompression, 'none'>,
    private readonly out: ChunkWriter,
  ) {
    this.stream = compressor(compression);
    this.pumped = this.pump();
    // Seen through end(); a failure with nobody waiting must not be an unhandled rejection.
    this.pumped.catch(() => undefined);
  }

  write(chunk: string | Buffer): Promise<void> {
    if (this.failure) return Promise.reject(this.failure.error);
    return new Promise((resolve, reject) => {
      this.stream.write(chunk, (error) => {
        if (this.failure) reject(this.failure.error);
        else if (error) reject(error);
        else resolve();
      });
    });
  }

  /** Flushes the compressor's last bytes into `out`; `out` itself is finished by its owner. */
  async end(): Promise<void> {
    if (this.failure) throw this.failure.error;
    this.stream.end();
    await this.pumped;
  }

  abort(): void {
    this.failure ??= { error: new Error('the compressed output was aborted') };
    this.stream.destroy();
  }

  private async pump(): Promise<void> {
    try {
      for await (const chunk of this.stream) await this.out.write(chunk as Buffer);
    } catch (error) {
      this.failure ??= { error };
      this.stream.destroy();
      throw error;
    }
  }
}
