import { JsonRow } from '../json-row-scanner.js';

/** A group's buffer starts this small (a table of a few rows costs little) and doubles as rows come. */
const INITIAL_BYTES = 64 * 1024;
/** Room past the limit for the row that crosses it. */
const SLACK_BYTES = 64 * 1024;

/**
 * The rows of one row group while they wait to be written: their rendered bytes, copied into a
 * buffer of the group's own, and each column's value ranges in it (one JsonRow per column, row r at
 * position r). Values are converted a column at a time as the group is written, so what waits is
 * about the rows' rendered size, not the several times more that JS strings, bigints and arrays of
 * them would take; and unescaped strings and JSON documents go to the writer as views of this
 * buffer, never decoded and encoded again.
 */
export class PendingGroup {
  private readonly columns: JsonRow[];
  private buffer: Buffer;
  private used = 0;
  /** Rows gathered. */
  rows = 0;
  /** Rendered bytes of those rows, keys and punctuation included: what the row-group bound counts. */
  bytes = 0;

  /** `limit`: the bytes at which the group is written, so its buffer need not grow much past them. */
  constructor(
    width: number,
    private readonly limit: number,
  ) {
    this.columns = Array.from({ length: width }, () => new JsonRow());
    this.buffer = Buffer.allocUnsafe(Math.min(INITIAL_BYTES, limit + SLACK_BYTES));
  }

  /** Copies a scanned row (from its first value to the end of its last) and notes where each value is. */
  add(row: JsonRow, frame: number): void {
    const start = row.start(0);
    const end = row.end(row.count - 1);
    const length = end - start;
    this.reserve(length);
    row.bytes.copy(this.buffer, this.used, start, end);
    const shift = this.used - start;
    for (let c = 0; c < row.count; c++) this.columns[c].push(row.kind(c), row.start(c) + shift, row.end(c) + shift, row.escaped(c));
    this.used += length;
    this.rows++;
    this.bytes += length + frame;
  }

  /**
   * Empties this group, which was just written, and takes over the rows of `next` (the few that
   * followed it in the same batch): its buffer, already grown to a row group's size, then serves
   * the whole table instead of a new one growing by doubling for every row group. Nothing refers
   * to the buffer once its row group is written (statistics are copied).
   */
  refill(next: PendingGroup): void {
    this.used = 0;
    this.rows = 0;
    this.bytes = 0;
    for (const values of this.columns) values.count = 0;
    this.reserve(next.used);
    next.buffer.copy(this.buffer, 0, 0, next.used);
    for (let c = 0; c < this.columns.length; c++) {
      const from = next.columns[c];
      const into = this.columns[c];
      for (let r = 0; r < from.count; r++) into.push(from.kind(r), from.start(r), from.end(r), from.escaped(r));
    }
    this.used = next.used;
    this.rows = next.rows;
    this.bytes = next.bytes;
  }

  /** The values of column `c`, by row, as byte ranges of the group's buffer. */
  column(c: number): JsonRow {
    const values = this.columns[c];
    values.bytes = this.buffer;
    return values;
  }

  private reserve(length: number): void {
    if (this.used + length <= this.buffer.length) return;
    // Doubling, but not far past the limit: a group stops taking rows once it holds that much.
    const grown = Buffer.allocUnsafe(Math.max(this.used + length, Math.min(this.buffer.length * 2, this.limit + SLACK_BYTES)));
    this.buffer.copy(grown, 0, 0, this.used);
    this.buffer = grown;
  }
}
