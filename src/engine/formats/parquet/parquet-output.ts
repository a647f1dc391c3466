import { ByteWriter } from 'hyparquet-writer';
import type { ByteOutput } from '../table-encoder.js';

/** Bytes handed to the output per write: the compressor and the sealer take any size, 1 MiB keeps each step short. */
const CHUNK_BYTES = 1024 * 1024;
const INITIAL_BYTES = 64 * 1024;
/** A buffer grown past this by one large row group is dropped after it is written, not kept for the table's life. */
const KEEP_BYTES = 4 * 1024 * 1024;

/**
 * hyparquet-writer's byte sink, drained into a ByteOutput: the writer encodes one row group (or
 * the footer) into this buffer, then calls flush() (or finish()), whose promise it awaits before
 * encoding more. Each chunk is a copy, since the buffer is written over by the next row group and
 * the output may keep what it was given.
 */
export class OutputWriter extends ByteWriter {
  constructor(private readonly out: ByteOutput) {
    super(INITIAL_BYTES);
  }

  flush(): Promise<void> {
    return this.drain();
  }

  override finish(): Promise<void> {
    return this.drain();
  }

  private async drain(): Promise<void> {
    const length = this.index;
    for (let offset = 0; offset < length; offset += CHUNK_BYTES) {
      await this.out.write(Buffer.from(new Uint8Array(this.buffer, offset, Math.min(CHUNK_BYTES, length - offset))));
    }
    this.index = 0;
    if (this.buffer.byteLength > KEEP_BYTES) {
      this.buffer = new ArrayBuffer(INITIAL_BYTES);
      this.view = new DataView(this.buffer);
    }
  }
}
