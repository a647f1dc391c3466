import { type ColumnSource, ParquetWriter } from 'hyparquet-writer';
import { JsonKind, JsonRow, scanRows } from '../json-row-scanner.js';
import type { ByteOutput, TableDescription, TableEncoder, TableEncoderFactory } from '../table-encoder.js';
import { parquetColumnOf } from './parquet-column-types.js';
import { describeParquetType, type ParquetColumnType } from './parquet-leaf.js';
import { OutputWriter } from './parquet-output.js';
import { PendingGroup } from './parquet-pending-group.js';
import { footerSchema, parquetSchema } from './parquet-schema.js';
import { columnConverter, type ValueConverter } from './parquet-values.js';
import { ParquetValueError, ValueMismatch } from './value-mismatch.js';

export interface ParquetEncoderOptions {
  /**
   * Rendered JSON a row group gathers before it is written. What the encoder holds is a copy of
   * this much input and the ranges of its values, plus one column's converted values and one
   * encoded row group while it is written out.
   */
  readonly rowGroupBytes?: number;
  /** Rows a row group gathers at most: bounds the per-value overhead of a narrow table. */
  readonly rowGroupRows?: number;
}

/**
 * 2 MiB of rendered rows a row group (~0.7 MB of Parquet for a typical mixed row). Peak RSS grows
 * with it, mostly the writer's garbage per row group: a 900,000-row, ~256 MiB PostgreSQL table
 * through the engine peaked at ~125 MiB with 2 MiB, ~165 MiB with 4 and ~190 MiB with 8 (CSV: ~85),
 * and a whole worker process at 186 MiB with 4: too close to the 200 MiB a worker is held to.
 */
export const DEFAULT_ROW_GROUP_BYTES = 2 * 1024 * 1024;
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
 * Writes one table as a Parquet file, a row group at a time: rows are copied into the pending group
 * as their batches arrive, and once it holds `rowGroupBytes` of rendered rows (or `rowGroupRows`
 * rows) it is converted a column at a time, encoded and written to the output, every write awaited.
 * Nothing of a batch is kept past `writeRows`: the group holds a copy.
 */
export class ParquetTableEncoder implements TableEncoder {
  private readonly columns: readonly Column[];
  private readonly writer: ParquetWriter;
  private readonly row = new JsonRow();
  /** Bytes of `{"<first key>":` and `}` plus the comma after a row, which the value ranges leave out. */
  private readonly rowFrame: number;
  private pending: PendingGroup;
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
    this.pending = new PendingGroup(this.columns.length, limits.rowGroupBytes);
    this.rowFrame = Buffer.byteLength(JSON.stringify(this.columns[0].name)) + 4;
  }

  /** Input bytes of the rows held for the next row group: what bounds this encoder's memory. */
  get pendingBytes(): number {
    return this.pending.bytes;
  }

  /** Rows held for the next row group. */
  get pendingRows(): number {
    return this.pending.rows;
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
      for (const group of full) await this.writeGroup(group);
      const last = full.at(-1);
      if (last !== undefined) {
        last.refill(this.pending);
        this.pending = last;
      }
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  /** Copies a batch's rows into the pending group; returns the row groups it filled, to be written in order. */
  private gather(json: Buffer, rowCount: number): PendingGroup[] {
    const full: PendingGroup[] = [];
    let filled = 0;
    let scanned: number;
    try {
      scanned = scanRows(
        json,
        (row) => {
          this.add(row);
          const { bytes, rows } = this.pending;
          this.peak = Math.max(this.peak, filled + bytes);
          if (bytes >= this.limits.rowGroupBytes || rows >= this.limits.rowGroupRows) {
            filled += bytes;
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
      if (this.pending.rows > 0) await this.writeGroup(this.take());
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

  private add(row: JsonRow): void {
    if (row.count !== this.columns.length) {
      throw new Error(`Parquet: ${where(this.table)}: a row has ${row.count} values for ${this.columns.length} columns`);
    }
    this.pending.add(row, this.rowFrame);
  }

  private take(): PendingGroup {
    const group = this.pending;
    // A small new group for the rest of the batch; once this one is written it takes them back (refill).
    this.pending = new PendingGroup(this.columns.length, this.limits.rowGroupBytes);
    return group;
  }

  /**
   * Encodes one row group. Each column's values are handed over as an object whose slice()
   * converts them: hyparquet-writer takes a column's data with slice() just before it encodes that
   * column, so only one column's converted values exist at a time.
   */
  private async writeGroup(group: PendingGroup): Promise<void> {
    const columnData = this.columns.map((column, c) => ({
      name: column.name,
      data: { length: group.rows, slice: () => this.convert(group, c) } as unknown as ColumnSource['data'],
      // Min/max of JSON documents are kept whole (a cut document is no bound), which could make
      // a footer as large as the data; they serve no reader's pruning either.
      ...(column.type.leaf.type === 'json' ? { statistics: false } : {}),
    }));
    await this.writer.write({ columnData, rowGroupSize: group.rows });
    this.detachStatistics();
    this.groups++;
  }

  private convert(group: PendingGroup, c: number): unknown[] {
    const { convert } = this.columns[c];
    const values = group.column(c);
    const converted = new Array<unknown>(values.count);
    for (let r = 0; r < values.count; r++) {
      try {
        converted[r] = values.kind(r) === JsonKind.Null ? null : convert(values, r);
      } catch (error) {
        if (error instanceof ValueMismatch) throw this.mismatch(values, r, c, error);
        throw error;
      }
    }
    return converted;
  }

  /**
   * The footer is written at the end from each column chunk's statistics, whose min and max may be
   * views of a group's buffer (strings are handed over as views): copies let the buffer go.
   */
  private detachStatistics(): void {
    for (const chunk of this.writer.row_groups.at(-1)?.columns ?? []) {
      const statistics = chunk.meta_data?.statistics as Record<string, unknown> | undefined;
      if (statistics === undefined) continue;
      for (const key of ['min_value', 'max_value', 'min', 'max']) {
        const value = statistics[key];
        if (value instanceof Uint8Array) statistics[key] = Uint8Array.from(value);
      }
    }
  }

  private mismatch(values: JsonRow, row: number, c: number, error: ValueMismatch): ParquetValueError {
    const column = this.columns[c];
    const raw = values.raw(row);
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
