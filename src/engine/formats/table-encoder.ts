import type { ColumnInfo } from '../connectors/shared/engine-connector.js';
import type { EngineType } from '../connectors/shared/engine-facts.js';

/** One table of a per-table result, as its encoder is told before the first row. */
export interface TableDescription {
  readonly datasource: string;
  /** The result key (`schema.table`, or `table` in the default schema). */
  readonly table: string;
  /** The datasource's engine (`POSTGRESQL`, `MYSQL`, …): how `columns`' types are read. */
  readonly engine: EngineType;
  /** The projected columns in output order: each row's keys, in this order. */
  readonly columns: readonly ColumnInfo[];
}

/** Where an encoder writes its bytes (the compressor, then the sealer). Await each write before the next. */
export interface ByteOutput {
  write(chunk: Buffer): Promise<void>;
}

/**
 * Turns one table's rows, as the connectors render them (RowBatch.json: JSON objects joined with
 * commas, keys in column order, values as docs/value-mapping.md says), into a format's bytes. Once
 * `writeRows` resolves the encoder holds no reference to `json`: its memory is reused.
 */
export interface TableEncoder {
  writeRows(json: Buffer, rowCount: number): Promise<void>;
  /** Writes what the format needs at the end (a header of an empty table, Parquet's last row group and footer). */
  finish(): Promise<void>;
}

export type TableEncoderFactory = (table: TableDescription, out: ByteOutput) => TableEncoder;
