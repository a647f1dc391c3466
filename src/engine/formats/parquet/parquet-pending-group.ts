import { JsonRow } from '../json-row-scanner.js';

/** A group's buffer starts this small (a table of a few rows costs little) and doubles as rows come. */
const INITIAL_BYTES = 64 * 1024;

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

  constructor(width: number) {
    this.columns = Array.from({ length: width }, () => new JsonRow());
    this.buffer = Buffer.allocUnsafe(INITIAL_BYTES);
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

  /** The values of column `c`, by row, as byte ranges of the group's buffer. */
  column(c: number): JsonRow {
    const values = this.columns[c];
    values.bytes = this.buffer;
    return values;
  }

  private reserve(length: number): void {
    if (this.used + length <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.used + length));
    this.buffer.copy(grown, 0, 0, this.used);
    this.buffer = grown;
  }
}
