import { ParquetWriter } from 'hyparquet-writer';
import { JsonKind, JsonRow, scanRows } from '../json-row-scanner.js';
import type { ByteOutput, TableDescription, TableEncoder, TableEncoderFactory } from '../table-encoder.js';
import { parquetColumnOf } from './parquet-column-types.js';
import { describeParquetType, type ParquetColumnType } from './parquet-leaf.js';
import { OutputWriter } from './parquet-output.js';
import { footerSchema, parquetSchema } from './parquet-schema.js';
import { columnConverter, type ValueConverter } from './parquet-values.js';
import { ParquetValueError, ValueMismatch } from './value-mismatch.js';

export interface ParquetEncoderOptions {
  /**
   * Rendered JSON a row group gathers before it is written. What the encoder holds is this much
   * input turned into column arrays (a few times its size in JS values), plus one encoded row
   * group while it is written out.
   */
  readonly rowGroupBytes?: number;
  /** Rows a row group gathers at most: bounds the per-value overhead of a narrow table. */
  readonly rowGroupRows?: number;
}

/** 8 MiB of JSON a row group: large enough for readers to skip and scan well, small enough to hold a few at once. */
export const DEFAULT_ROW_GROUP_BYTES = 8 * 1024 * 1024;
export const DEFAULT_ROW_GROUP_ROWS = 262_144;
const NO_BYTES = Buffer.alloc(0);
/** Characters of a value quoted in an error message. */
const SHOWN_VALUE = 100;

interface Column {
  readonly name: string;
  readonly type: ParquetColumnType;
  readonly convert: ValueConverter;
}

/**
 * Writes one table as a Parquet file, a row group at a time: rows are converted into column arrays
 * as their batches arrive, and once those hold `rowGroupBytes` of input (or `rowGroupRows` rows) they
 * are encoded and written to the output, every write awaited. Nothing of a batch is kept past
 * `writeRows`: values are converted into strings, numbers, bigints and new bytes.
 */
export class ParquetTableEncoder implements TableEncoder {
  private readonly columns: readonly Column[];
  private readonly writer: ParquetWriter;
  private readonly row = new JsonRow();
  private readonly values: unknown[];
  /** Bytes of `{"<first key>":` and `}` plus the comma after a row, which the value ranges leave out. */
  private readonly rowFrame: number;
  private pending: unknown[][];
  private bytes = 0;
  private rows = 0;
  private groups = 0;
  private peak = 0;
  private failure: unknown = null;
  private finished = false;

  constructor(
    private readonly table: TableDescription,
    out: ByteOutput,
    private readonly limits: Required<ParquetEncoderOptions>,
  ) {
    if (table.columns.length === 0) throw new Error(`Parquet: ${where(table)} has no columns to write`);
    const names = new Set(table.columns.map((c) => c.name));
    if (names.size !== table.columns.length) throw new Error(`Parquet: ${where(table)} names a column twice`);
    this.columns = table.columns.map((column) => {
      const type = parquetColumnOf(table.engine, column);
      return { name: column.name, type, convert: columnConverter(type) };
    });
    this.writer = new ParquetWriter({ writer: new OutputWriter(out), schema: parquetSchema(this.columns), createdBy: 'Fetcher' });
    this.values = new Array(this.columns.length);
    this.pending = this.columns.map(() => []);
    this.rowFrame = Buffer.byteLength(JSON.stringify(this.columns[0].name)) + 4;
  }

  /** Input bytes of the rows held for the next row group: what bounds this encoder's memory. */
  get pendingBytes(): number {
    return this.bytes;
  }

  /** Rows held for the next row group. */
  get pendingRows(): number {
    return this.rows;
  }

  /**
   * The most input bytes held at once: the pending rows, plus row groups a batch filled before it
   * was scanned to its end (they are written then, in order). At most the bound plus one batch.
   */
  get peakHeldBytes(): number {
    return this.peak;
  }

  /** Row groups written to the output so far. */
  get rowGroupsWritten(): number {
    return this.groups;
  }

  /** The Parquet type each column is written as, in output order (`DECIMAL(38,10)`, `LIST<INT64>`). */
  get columnTypes(): readonly string[] {
    return this.columns.map((c) => describeParquetType(c.type));
  }

  async writeRows(json: Buffer, rowCount: number): Promise<void> {
    this.usable();
    if (this.finished) throw new Error(`Parquet: ${where(this.table)} was already finished`);
    try {
      const full = this.gather(json, rowCount);
      for (const group of full) await this.writeGroup(group.columns, group.rows);
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  /** Converts a batch's rows into the pending columns; returns the row groups it filled, to be written in order. */
  private gather(json: Buffer, rowCount: number): { readonly columns: unknown[][]; readonly rows: number }[] {
    const full: { readonly columns: unknown[][]; readonly rows: number }[] = [];
    let filled = 0;
    let scanned: number;
    try {
      scanned = scanRows(
        json,
        (row) => {
          this.add(row);
          this.peak = Math.max(this.peak, filled + this.bytes);
          if (this.bytes >= this.limits.rowGroupBytes || this.rows >= this.limits.rowGroupRows) {
            filled += this.bytes;
            full.push(this.take());
          }
        },
        this.row,
      );
    } finally {
      // The scanner's row points into the batch, which is the connector's to reuse.
      this.row.bytes = NO_BYTES;
    }
    if (scanned !== rowCount) throw new Error(`Parquet: ${where(this.table)}: a batch said ${rowCount} rows and held ${scanned}`);
    return full;
  }

  async finish(): Promise<void> {
    this.usable();
    if (this.finished) throw new Error(`Parquet: ${where(this.table)} was already finished`);
    this.finished = true;
    try {
      if (this.rows > 0) {
        const group = this.take();
        await this.writeGroup(group.columns, group.rows);
      }
      this.writer.schema = footerSchema(this.writer.schema);
      await this.writer.finish();
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  private usable(): void {
    if (this.failure !== null) throw this.failure;
  }

  /** Converts a whole row before keeping any of it, so a value that fails leaves the columns even. */
  private add(row: JsonRow): void {
    const { columns, values } = this;
    if (row.count !== columns.length) {
      throw new Error(`Parquet: ${where(this.table)}: a row has ${row.count} values for ${columns.length} columns`);
    }
    let i = 0;
    try {
      for (; i < columns.length; i++) values[i] = row.kind(i) === JsonKind.Null ? null : columns[i].convert(row, i);
    } catch (error) {
      if (error instanceof ValueMismatch) throw this.mismatch(row, i, error);
      throw error;
    }
    for (let c = 0; c < columns.length; c++) this.pending[c].push(values[c]);
    this.bytes += row.end(row.count - 1) - row.start(0) + this.rowFrame;
    this.rows++;
  }

  private take(): { readonly columns: unknown[][]; readonly rows: number } {
    const group = { columns: this.pending, rows: this.rows };
    this.pending = this.columns.map(() => []);
    this.bytes = 0;
    this.rows = 0;
    return group;
  }

  private async writeGroup(columns: unknown[][], rows: number): Promise<void> {
    const columnData = this.columns.map((column, i) => ({
      name: column.name,
      data: columns[i],
      // Min/max of JSON documents are kept whole (a cut document is no bound), which could make
      // a footer as large as the data; they serve no reader's pruning either.
      ...(column.type.leaf.type === 'json' ? { statistics: false } : {}),
    }));
    await this.writer.write({ columnData, rowGroupSize: rows });
    this.groups++;
  }

  private mismatch(row: JsonRow, index: number, error: ValueMismatch): ParquetValueError {
    const column = this.columns[index];
    const raw = row.raw(index);
    const shown = raw.length > SHOWN_VALUE ? `${raw.slice(0, SHOWN_VALUE)}…` : raw;
    return new ParquetValueError(
      this.table.datasource,
      this.table.table,
      column.name,
      `Parquet: ${where(this.table)}, column ${JSON.stringify(column.name)} (${describeParquetType(column.type)}): ` +
        `the value ${shown} ${error.message}`,
    );
  }
}

const where = (table: TableDescription): string => `table ${JSON.stringify(table.table)} of ${JSON.stringify(table.datasource)}`;

/** A factory of Parquet encoders; the options exist for tests that need many row groups from little data. */
export function createParquetEncoder(options: ParquetEncoderOptions = {}): TableEncoderFactory {
  const limits = {
    rowGroupBytes: options.rowGroupBytes ?? DEFAULT_ROW_GROUP_BYTES,
    rowGroupRows: options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS,
  };
  return (table, out) => new ParquetTableEncoder(table, out, limits);
}

/** Parquet for one table (docs/formats-parquet.md). */
export const parquetEncoder: TableEncoderFactory = createParquetEncoder();
