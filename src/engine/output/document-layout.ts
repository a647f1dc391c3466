import type { RowBatch, RowFrame } from '../connectors/shared/engine-connector.js';
import type { EngineType } from '../connectors/shared/engine-facts.js';
import { ndjsonRowFrame } from '../connectors/shared/row-frame.js';
import type { TableDescription } from '../formats/table-encoder.js';
import type { ResultLayout } from './result-layout.js';

/** Where a document's bytes go, and how many of them the result limit counts so far. */
export interface DocumentOutput {
  write(chunk: string | Buffer): Promise<void>;
  /** Bytes the limit counts: what is stored (after compression). */
  readonly countedBytes: number;
}

/** `engine`: the datasource the bytes belong to; absent for the document's own punctuation. */
export type BytesListener = (bytes: number, engine?: EngineType) => void;

abstract class DocumentLayout implements ResultLayout {
  protected engine: EngineType | undefined;

  constructor(
    private readonly out: DocumentOutput,
    private readonly onBytes?: BytesListener,
  ) {}

  get writtenBytes(): number {
    return this.out.countedBytes;
  }

  abstract rowFrame(datasource: string, table: string): RowFrame | undefined;
  abstract begin(): Promise<void>;
  abstract beginDatasource(configName: string, engine: EngineType, index: number): Promise<void>;
  abstract beginTable(table: TableDescription, index: number): Promise<void>;
  abstract writeRows(batch: RowBatch, index: number): Promise<void>;
  abstract endTable(rows: number): Promise<void>;
  abstract endDatasource(): Promise<void>;
  abstract end(): Promise<void>;

  protected async write(chunk: string | Buffer, engine = this.engine): Promise<void> {
    await this.out.write(chunk);
    this.onBytes?.(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length, engine);
  }
}

/** `{config: {table: [rows]}}`, compact: byte for byte the document Fetcher has always written. */
export class JsonDocumentLayout extends DocumentLayout {
  rowFrame(): undefined {
    return undefined;
  }

  begin(): Promise<void> {
    return this.write('{', undefined);
  }

  async beginDatasource(configName: string, engine: EngineType, index: number): Promise<void> {
    // The comma between two datasources belongs to the document, not to either of them.
    if (index > 0) await this.write(',', undefined);
    this.engine = engine;
    await this.write(`${JSON.stringify(configName)}:{`);
  }

  beginTable(table: TableDescription, index: number): Promise<void> {
    return this.write(`${index > 0 ? ',' : ''}${JSON.stringify(table.table)}:[`);
  }

  async writeRows(batch: RowBatch, index: number): Promise<void> {
    if (index > 0) await this.write(',');
    await this.write(batch.json);
  }

  endTable(): Promise<void> {
    return this.write(']');
  }

  async endDatasource(): Promise<void> {
    await this.write('}');
    this.engine = undefined;
  }

  end(): Promise<void> {
    return this.write('}', undefined);
  }
}

/**
 * One line per row, `{"datasource":…,"table":…,"row":{…}}\n`, in the JSON document's order. The
 * connectors render the wrapper with the row (RowFrame), so each batch is written as it came.
 */
export class NdjsonDocumentLayout extends DocumentLayout {
  rowFrame(datasource: string, table: string): RowFrame {
    return ndjsonRowFrame(datasource, table);
  }

  async begin(): Promise<void> {}

  async beginDatasource(_configName: string, engine: EngineType): Promise<void> {
    this.engine = engine;
  }

  async beginTable(): Promise<void> {}

  async writeRows(batch: RowBatch): Promise<void> {
    await this.write(batch.json);
    await this.write('\n');
  }

  async endTable(): Promise<void> {}

  async endDatasource(): Promise<void> {
    this.engine = undefined;
  }

  async end(): Promise<void> {}
}
