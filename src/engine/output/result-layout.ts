import type { RowBatch, RowFrame } from '../connectors/shared/engine-connector.js';
import type { EngineType } from '../connectors/shared/engine-facts.js';
import type { TableDescription } from '../formats/table-encoder.js';

/**
 * How an extraction's rows become stored bytes: one document (json, ndjson) or one part per table
 * (csv, parquet). The executor calls it from one task, in result order, awaiting each call:
 * begin, then per datasource beginDatasource · (beginTable · writeRows* · endTable)* · endDatasource,
 * then nothing more (the engine finishes or aborts the layout itself).
 */
export interface ResultLayout {
  /** How the rows of this table must be rendered; the readers ask before reading it. */
  rowFrame(datasource: string, table: string): RowFrame | undefined;
  /** Bytes handed on so far, counted against the result limit (what a read may still add). */
  readonly writtenBytes: number;
  begin(): Promise<void>;
  beginDatasource(configName: string, engine: EngineType, index: number): Promise<void>;
  beginTable(table: TableDescription, index: number): Promise<void>;
  /** `index`: the batch's position in its table. Once it resolves nothing refers to `batch.json`. */
  writeRows(batch: RowBatch, index: number): Promise<void>;
  endTable(rows: number): Promise<void>;
  endDatasource(): Promise<void>;
  end(): Promise<void>;
}
