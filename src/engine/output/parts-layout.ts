import type { RowBatch } from '../connectors/shared/engine-connector.js';
import type { EngineType } from '../connectors/shared/engine-facts.js';
import type { ResultOutput } from '../formats/output-format.js';
import { manifestBytes, partFileName, type PartSink, type ResultPart } from '../formats/result-parts.js';
import type { TableDescription, TableEncoder, TableEncoderFactory } from '../formats/table-encoder.js';
import type { WrittenResult, ResultWriter } from '../result/result-sealer.js';
import type { ResultUpload } from '../result/result-upload.js';
import { CompressedOutput } from './compressed-output.js';
import type { BytesListener } from './document-layout.js';
import type { ResultLayout } from './result-layout.js';

export interface PartsLayoutOptions {
  readonly output: ResultOutput;
  readonly sink: PartSink;
  readonly encoder: TableEncoderFactory;
  /** The writer of one object (a part or the manifest), sealed or not, refusing a byte past `maxBytes`. */
  readonly openWriter: (upload: ResultUpload, maxBytes: number) => ResultWriter;
  /** Bytes every part and the manifest may hold together: the result limit counts what is stored. */
  readonly maxBytes: number;
  readonly onBytes?: BytesListener;
}

interface OpenPart {
  readonly description: TableDescription;
  readonly path: string;
  readonly writer: ResultWriter;
  readonly compressed?: CompressedOutput;
  readonly encoder: TableEncoder;
}

/**
 * One part per table (csv, parquet): each encoded, compressed when asked and sealed into its own
 * upload, opened when the table starts; then a manifest listing them. Parts are written one after
 * another, so the bytes left under the limit are known when each starts. Abort fails the part being
 * written; parts already completed are the sink owner's to delete (PartSink).
 */
export class PartsLayout implements ResultLayout {
  private readonly parts: ResultPart[] = [];
  private current: OpenPart | undefined;
  private completedBytes = 0;
  private storedBytes = 0;
  private engine: EngineType | undefined;

  constructor(private readonly options: PartsLayoutOptions) {}

  get writtenBytes(): number {
    return this.completedBytes + (this.current?.writer.sizeBytes ?? 0);
  }

  rowFrame(): undefined {
    return undefined;
  }

  async begin(): Promise<void> {}

  async beginDatasource(_configName: string, engine: EngineType): Promise<void> {
    this.engine = engine;
  }

  async beginTable(description: TableDescription): Promise<void> {
    const { output, sink } = this.options;
    const target = sink.openPart({
      datasource: description.datasource,
      table: description.table,
      format: output.format,
      compression: output.compression,
      fileName: partFileName(description.table, output),
    });
    const writer = this.options.openWriter(target.upload, this.options.maxBytes - this.completedBytes);
    const compressed = output.compression === 'none' ? undefined : new CompressedOutput(output.compression, writer);
    const next = compressed ?? writer;
    const engine = this.engine;
    const onBytes = this.options.onBytes;
    const encoder = this.options.encoder(description, {
      write: async (chunk) => {
        await next.write(chunk);
        onBytes?.(chunk.length, engine);
      },
    });
    this.current = { description, path: target.path, writer, compressed, encoder };
  }

  async writeRows(batch: RowBatch): Promise<void> {
    await (this.current as OpenPart).encoder.writeRows(batch.json, batch.rowCount);
  }

  async endTable(rows: number): Promise<void> {
    const part = this.current as OpenPart;
    await part.encoder.finish();
    await part.compressed?.end();
    const written = await part.writer.finish();
    this.current = undefined;
    this.completedBytes += written.sizeBytes;
    this.storedBytes += written.storedBytes;
    this.parts.push(describePart(part, written, rows, this.options.output));
  }

  async endDatasource(): Promise<void> {
    this.engine = undefined;
  }

  async end(): Promise<void> {}

  /** Writes the manifest of every part; its size and digests are the result's. */
  async finish(): Promise<{ readonly manifest: WrittenResult; readonly parts: readonly ResultPart[]; readonly storedBytes: number }> {
    const { output } = this.options;
    const writer = this.options.openWriter(this.options.sink.openManifest(), this.options.maxBytes - this.completedBytes);
    await writer.write(manifestBytes({ version: 1, format: output.format, compression: output.compression, parts: this.parts }));
    const manifest = await writer.finish();
    return { manifest, parts: this.parts, storedBytes: this.storedBytes + manifest.storedBytes };
  }

  /** Stops the part being written; never throws. */
  async abort(): Promise<void> {
    const part = this.current;
    this.current = undefined;
    part?.compressed?.abort();
    await part?.writer.abort();
  }
}

function describePart(part: OpenPart, written: WrittenResult, rowCount: number, output: ResultOutput): ResultPart {
  return {
    datasource: part.description.datasource,
    table: part.description.table,
    path: part.path,
    format: output.format,
    compression: output.compression,
    sizeBytes: written.sizeBytes,
    rowCount,
    sha256: written.sha256,
    ...(written.hmac === undefined ? {} : { hmac: written.hmac }),
  };
}
