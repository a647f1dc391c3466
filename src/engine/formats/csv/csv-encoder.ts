import { JsonKind, JsonRow, scanRows } from '../json-row-scanner.js';
import type { ByteOutput, TableDescription, TableEncoder } from '../table-encoder.js';

const COMMA = 0x2c;
const QUOTE = 0x22;
const NEWLINE = 0x0a;
/** Output gathered before one write downstream. */
const FLUSH_BYTES = 64 * 1024;
/** Characters that make RFC 4180 quote a field. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * CSV as RFC 4180 describes it, UTF-8 without a byte-order mark, `\n` line ends: a header of the
 * column names, then one line per row with each value as its JSON text (docs/value-mapping.md,
 * "Formats"): a string's text, a number's digits, `true`/`false`, JSON documents and arrays as their
 * JSON; NULL an empty unquoted field and the empty string `""`. A field is quoted only when it holds
 * a quote, comma or line break.
 */
export class CsvEncoder implements TableEncoder {
  private buffer = Buffer.allocUnsafe(FLUSH_BYTES * 2);
  private pos = 0;
  private readonly row = new JsonRow();
  private readonly columns: number;
  private readonly header: Buffer;

  constructor(
    private readonly table: TableDescription,
    private readonly out: ByteOutput,
  ) {
    this.columns = table.columns.length;
    this.header = Buffer.from(`${table.columns.map((column) => field(column.name)).join(',')}\n`, 'utf8');
    this.append(this.header, 0, this.header.length);
  }

  async writeRows(json: Buffer): Promise<void> {
    scanRows(json, (row) => this.writeRow(row), this.row);
    // What is kept is a copy: the batch's memory goes back to its connector once this resolves.
    if (this.pos >= FLUSH_BYTES) await this.flush();
  }

  async finish(): Promise<void> {
    if (this.pos > 0) await this.flush();
  }

  private writeRow(row: JsonRow): void {
    const count = row.count;
    if (count !== this.columns) {
      throw new Error(`table '${this.table.table}': a row has ${count} values for ${this.columns} columns`);
    }
    if (count === 0) {
      this.byte(NEWLINE);
      return;
    }
    const bytes = row.bytes;
    // Room for the whole row at once: no field grows past twice its JSON bytes (quotes doubled).
    this.reserve(2 * (row.end(count - 1) - row.start(0)) + 2 * count + 2);
    const out = this.buffer;
    let pos = this.pos;
    for (let i = 0; i < count; i++) {
      if (i > 0) out[pos++] = COMMA;
      const start = row.start(i);
      const end = row.end(i);
      switch (row.kind(i)) {
        case JsonKind.Null:
          break;
        case JsonKind.String:
          if (row.escaped(i)) {
            this.pos = pos;
            this.text(row.text(i));
            pos = this.pos;
          } else {
            // JSON escapes quotes and line breaks, so only a comma makes such a string need quotes;
            // the empty string is `""`, told apart from NULL. Short values are copied byte by byte:
            // cheaper than a native copy call per field.
            const quote = end - start === 2 || hasComma(bytes, start + 1, end - 1);
            if (quote) out[pos++] = QUOTE;
            pos = copyBytes(bytes, start + 1, end - 1, out, pos);
            if (quote) out[pos++] = QUOTE;
          }
          break;
        case JsonKind.Object:
        case JsonKind.Array:
          this.pos = pos;
          this.text(bytes.toString('utf8', start, end));
          pos = this.pos;
          break;
        default:
          pos = copyBytes(bytes, start, end, out, pos);
      }
    }
    out[pos++] = NEWLINE;
    this.pos = pos;
  }

  private text(value: string): void {
    const text = value.length === 0 ? '""' : field(value);
    this.pos += this.buffer.write(text, this.pos, 'utf8');
  }

  private append(source: Buffer, start: number, end: number): void {
    this.reserve(end - start);
    this.pos += source.copy(this.buffer, this.pos, start, end);
  }

  private byte(value: number): void {
    this.reserve(1);
    this.buffer[this.pos++] = value;
  }

  private reserve(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.pos + bytes));
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
  }

  private async flush(): Promise<void> {
    const chunk = this.buffer.subarray(0, this.pos);
    this.pos = 0;
    await this.out.write(chunk);
    // A buffer grown for one huge value is not kept for the rest of the table.
    if (this.buffer.length > FLUSH_BYTES * 2) this.buffer = Buffer.allocUnsafe(FLUSH_BYTES * 2);
  }
}

/** Fields shorter than this are copied in a loop; longer ones by Buffer.copy. */
const LOOP_COPY_BYTES = 64;

function copyBytes(source: Buffer, start: number, end: number, out: Buffer, pos: number): number {
  if (end - start >= LOOP_COPY_BYTES) return pos + source.copy(out, pos, start, end);
  for (let i = start; i < end; i++) out[pos++] = source[i];
  return pos;
}

function hasComma(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] === COMMA) return true;
  return false;
}

/** `value` as a CSV field: quoted, with its quotes doubled, only when RFC 4180 needs it. */
function field(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export const csvEncoder = (table: TableDescription, out: ByteOutput): TableEncoder => new CsvEncoder(table, out);
