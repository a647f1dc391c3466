import type { RowBatch } from '../shared/engine-connector.js';
import { writeJsonEscape } from '../shared/json-bytes.js';
import { JsonChunkWriter } from '../shared/json-chunk-writer.js';
import type { ReadBudget } from '../shared/read-budget.js';
import { JSON_ROW_FRAME_BYTES, type RowFrameBytes, writeFrameBytes } from '../shared/row-frame.js';
import { readLength } from './copy-data-framer.js';
import { type CopyColumn, CopyKind } from './copy-text-columns.js';

const TAB = 9;
const NEWLINE = 10;
const BACKSLASH = 92;
const QUOTE = 34;
const COMMA = 44;
const CLOSE_BRACE = 125;
const OPEN_BRACE = 123;

/** Bytes per batch handed on: large enough that per-batch costs vanish, small next to the channel. */
export const COPY_BATCH_BYTES = 128 * 1024;

/** A field, escape or layout the COPY text format never produces: the stream is not what we asked for. */
export class CopyFormatError extends Error {}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

const PLAIN = 0;
const SPECIAL = 1;
const FIELD_END = 2;
/** For text: bytes copied as they are, bytes JSON or COPY escape, and the field's end. */
const TEXT_BYTE = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) TEXT_BYTE[c] = SPECIAL;
TEXT_BYTE[QUOTE] = SPECIAL;
TEXT_BYTE[BACKSLASH] = SPECIAL;
TEXT_BYTE[TAB] = FIELD_END;
TEXT_BYTE[NEWLINE] = FIELD_END;

/**
 * Renders the rows of `COPY (…) TO STDOUT` (text format: tab between fields, a newline after each
 * row, `\N` for NULL, backslash escapes) as JSON objects in the read's row frame (by default:
 * joined with commas), byte by byte: no value becomes a JS string on the fast paths. The output is
 * byte-identical to the cursor path's renderer for the same rows (a differential test holds both
 * to it).
 *
 * It reads whole CopyData messages as CopyDataFramer hands them over, headers included: PostgreSQL
 * sends one row per message, so a row's end is known from its header and no search is needed; a
 * message that is not exactly one row is refused (CopyFormatError) rather than guessed at.
 */
export class CopyTextRenderer extends JsonChunkWriter {
  /** Bytes every row needs besides its values: keys, braces and the frame's bytes around it. */
  private readonly rowOverhead: number;
  /** End of the row being rendered, for the room the fields after an encoded one still need. */
  private rowEnd = 0;

  constructor(
    private readonly columns: readonly CopyColumn[],
    private readonly budget: ReadBudget,
    private readonly frame: RowFrameBytes = JSON_ROW_FRAME_BYTES,
  ) {
    // A batch is one chunk: handed on whole, however full.
    super(COPY_BATCH_BYTES, false);
    // 3: the braces, and one byte of slack; the JSON frame's comma makes it the 4 it always was.
    this.rowOverhead = columns.reduce((sum, c) => sum + c.prefix.length + 8, 3) + frame.bytes;
  }

  /** Renders every row of `messages` (whole CopyData messages); returns the batches that filled up. */
  push(messages: Buffer): RowBatch[] {
    this.renderRows(messages, 0, messages.length);
    return this.takeChunks();
  }

  /** The last batch. */
  end(): RowBatch[] {
    this.flushChunk();
    return this.takeChunks();
  }

  /** Makes room for `bytes` more output bytes, keeping the row being written in one batch. */
  private ensure(bytes: number): void {
    if (this.pos + bytes > this.out.length) this.grow(this.pos + bytes);
  }

  /**
   * `data[start, end)` holds whole CopyData messages, a row each. One pass per field: bytes are
   * copied while the delimiter is looked for, and the rare forms a fast path cannot write are
   * rewound and handed to the column's encoder.
   */
  private renderRows(data: Buffer, start: number, end: number): void {
    const columns = this.columns;
    const n = columns.length;
    const batchRows = this.budget.batchRows;
    const frame = this.frame;
    const jsonFrame = frame.isJson;
    let i = start;
    while (i < end) {
      const messageEnd = i + 1 + readLength(data, i + 1);
      i += 5;
      const rowEnd = messageEnd - 1;
      if (messageEnd > end || data[rowEnd] !== NEWLINE) throw new CopyFormatError('a CopyData message does not hold one whole row');
      this.rowEnd = rowEnd;
      // Worst case: every byte becomes a six-byte \u00XX escape.
      const bound = (rowEnd - i) * 6 + this.rowOverhead;
      if (this.chunkRows > 0 && (this.pos + bound > this.out.length || this.chunkRows >= batchRows)) this.flushChunk();
      this.ensure(bound);
      let out = this.out;
      let pos = this.pos;
      // The JSON frame keeps the single comma write it had before frames; any other is copied.
      if (jsonFrame) {
        if (this.chunkRows > 0) out[pos++] = COMMA;
      } else {
        if (this.chunkRows > 0) pos = writeFrameBytes(frame.separator, out, pos);
        pos = writeFrameBytes(frame.open, out, pos);
      }
      if (n === 0) out[pos++] = OPEN_BRACE;
      for (let c = 0; c < n; c++) {
        const column = columns[c];
        const prefix = column.prefix;
        for (let k = 0; k < prefix.length; k++) out[pos++] = prefix[k];
        if (data[i] === BACKSLASH && data[i + 1] === 78 /* N */ && (data[i + 2] === TAB || data[i + 2] === NEWLINE)) {
          out[pos++] = 110; // n
          out[pos++] = 117; // u
          out[pos++] = 108; // l
          out[pos++] = 108; // l
          i += 3;
          continue;
        }
        const fieldStart = i;
        const written = pos;
        switch (column.kind) {
          case CopyKind.Verbatim:
            pos = writeVerbatim(data, i, out, pos);
            break;
          case CopyKind.Float:
            pos = writeFloat(data, i, out, pos);
            break;
          case CopyKind.Bool:
            pos = writeBool(data, i, out, pos);
            break;
          case CopyKind.Quoted:
            pos = writeQuoted(data, i, out, pos);
            break;
          case CopyKind.Text:
            pos = writeText(data, i, out, pos);
            break;
          case CopyKind.Timestamp:
            pos = writeTimestamp(data, i, out, pos, false);
            break;
          case CopyKind.Timestamptz:
            pos = writeTimestamp(data, i, out, pos, true);
            break;
          case CopyKind.Encoded:
            skipField(data, i);
            break;
        }
        i = scanned;
        const b = data[i];
        if (pos === written) {
          // Encoded, or a form without a fast path: the cursor path's encoder writes it.
          this.pos = pos;
          pos = this.writeEncoded(column, data, fieldStart, i);
          // A value longer than foreseen may have moved the row to a larger buffer.
          out = this.out;
        }
        if ((b === NEWLINE) !== (c === n - 1)) throw new CopyFormatError(`a row does not have ${n} fields`);
        i++;
      }
      if (n === 0) i = rowEnd + 1;
      if (i !== messageEnd) throw new CopyFormatError('a CopyData message does not hold one whole row');
      out[pos++] = CLOSE_BRACE;
      if (!jsonFrame) pos = writeFrameBytes(frame.close, out, pos);
      this.pos = pos;
      this.chunkRows++;
    }
  }

  /** Writes one field through the column's encoder at `this.pos`; returns the position after it. */
  private writeEncoded(column: CopyColumn, data: Buffer, start: number, end: number): number {
    const json = column.encoder(unescapeCopyText(data, start, end));
    this.ensure(Buffer.byteLength(json, 'utf8') + (this.rowEnd - end) * 6 + this.rowOverhead);
    return this.pos + this.out.write(json, this.pos, 'utf8');
  }
}

/*
 * One small function per kind: V8 optimises each byte loop on its own, which a single function
 * holding every loop did far worse (the text loop alone ran twice as fast once on its own). Each
 * writes the field starting at `start`, returns the position after it, and leaves in `scanned`
 * where the field ended (its tab or newline). Writing nothing means "no fast path for this form":
 * the caller hands the field to the column's encoder.
 */

/** Where the last field function stopped: the tab or newline after its field. */
let scanned = 0;

function skipField(data: Buffer, start: number): void {
  let i = start;
  for (let b = data[i]; b !== TAB && b !== NEWLINE; b = data[++i]);
  scanned = i;
}

function writeVerbatim(data: Buffer, start: number, out: Buffer, pos: number): number {
  let i = start;
  for (let b = data[i]; b !== TAB && b !== NEWLINE; b = data[++i]) out[pos++] = b;
  scanned = i;
  return pos;
}

/** NaN, Infinity and -Infinity end with a letter: JSON has no such numbers, so they are quoted. */
function writeFloat(data: Buffer, start: number, out: Buffer, pos: number): number {
  const written = pos;
  pos = writeVerbatim(data, start, out, pos);
  if (isDigit(out[pos - 1])) return pos;
  out.copyWithin(written + 1, written, pos);
  out[written] = QUOTE;
  out[pos + 1] = QUOTE;
  return pos + 2;
}

/** COPY writes a bool as `t` or `f`; the bytes of `true` and `false` are stored without a copy loop. */
function writeBool(data: Buffer, start: number, out: Buffer, pos: number): number {
  const end = data[start + 1];
  if (end !== TAB && end !== NEWLINE) {
    skipField(data, start);
    return pos;
  }
  scanned = start + 1;
  if (data[start] === 116 /* t */) {
    out[pos] = 116;
    out[pos + 1] = 114;
    out[pos + 2] = 117;
    out[pos + 3] = 101;
    return pos + 4;
  }
  out[pos] = 102;
  out[pos + 1] = 97;
  out[pos + 2] = 108;
  out[pos + 3] = 115;
  out[pos + 4] = 101;
  return pos + 5;
}

function writeQuoted(data: Buffer, start: number, out: Buffer, pos: number): number {
  out[pos++] = QUOTE;
  pos = writeVerbatim(data, start, out, pos);
  out[pos++] = QUOTE;
  return pos;
}

/**
 * `YYYY-MM-DD HH:MM:SS[.f]` → `"YYYY-MM-DDTHH:MM:SS[.f]"`, and with a time zone the session's
 * `+00` → `Z`. Anything else (BC, infinity, five-digit years, other offsets) writes nothing.
 */
function writeTimestamp(data: Buffer, start: number, out: Buffer, pos: number, zoned: boolean): number {
  const written = pos;
  out[pos++] = QUOTE;
  const at = pos;
  pos = writeVerbatim(data, start, out, pos);
  const plain = pos - at >= 19 && isDigit(out[at]) && out[at + 4] === 45 /* - */ && out[at + 10] === 32; /* space */
  if (!plain) return written;
  if (!zoned) {
    if (!isDigit(out[pos - 1])) return written;
  } else {
    if (pos - at < 22 || out[pos - 3] !== 43 /* + */ || out[pos - 2] !== 48 || out[pos - 1] !== 48 || !isDigit(out[pos - 4]))
      return written;
    pos -= 3;
    out[pos++] = 90; // Z
  }
  out[at + 10] = 84; // T
  out[pos++] = QUOTE;
  return pos;
}

/**
 * One text field from `start` as a JSON string, COPY-unescaped and escaped exactly as
 * JSON.stringify does; sets `scanned`. Its own small function so V8 optimises the byte loop alone.
 */
function writeText(data: Buffer, start: number, out: Buffer, pos: number): number {
  out[pos++] = QUOTE;
  let i = start;
  for (let b = data[i]; ; b = data[++i]) {
    // One table load per byte: most bytes are copied as they are.
    const kind = TEXT_BYTE[b];
    if (kind === PLAIN) {
      out[pos++] = b;
    } else if (kind === FIELD_END) {
      break;
    } else if (b === BACKSLASH) {
      pos = writeEscape(data[++i], out, pos);
    } else if (b === QUOTE) {
      out[pos++] = BACKSLASH;
      out[pos++] = QUOTE;
    } else {
      pos = writeJsonEscape(b, out, pos);
    }
  }
  scanned = i;
  out[pos++] = QUOTE;
  return pos;
}

/**
 * The COPY escape after a backslash, as JSON.stringify writes that character. A switch rather
 * than UNESCAPED + writeJsonEscape, which rendered the bench table 7 % slower: this is the text
 * loop's hot path.
 */
function writeEscape(e: number, out: Buffer, pos: number): number {
  switch (e) {
    case BACKSLASH:
    case 98: // b
    case 102: // f
    case 110: // n
    case 114: // r
    case 116: // t
      out[pos++] = BACKSLASH;
      out[pos++] = e;
      return pos;
    case 118: // v: JSON has no short escape for it
      return writeJsonEscape(0x0b, out, pos);
    default:
      throw new CopyFormatError('an escape COPY TO never writes');
  }
}

/** The characters COPY TO escapes (`\\` and `\b \f \n \r \t \v`), by the letter after the backslash. */
const UNESCAPED: Record<number, number> = { 92: 92, 98: 8, 102: 12, 110: 10, 114: 13, 116: 9, 118: 11 };

/** The character a COPY escape letter stands for. */
function unescaped(letter: number): number {
  const value = UNESCAPED[letter];
  if (value === undefined) throw new CopyFormatError('an escape COPY TO never writes');
  return value;
}

/** The value a COPY text field stands for, as the cursor path receives it (UTF-8 decoded). */
export function unescapeCopyText(data: Buffer, start: number, end: number): string {
  let first = start;
  while (first < end && data[first] !== BACKSLASH) first++;
  if (first === end) return data.toString('utf8', start, end);
  const bytes = Buffer.allocUnsafe(end - start);
  let pos = data.copy(bytes, 0, start, first);
  for (let i = first; i < end; i++) {
    const c = data[i];
    if (c !== BACKSLASH) {
      bytes[pos++] = c;
      continue;
    }
    bytes[pos++] = unescaped(data[++i]);
  }
  return bytes.toString('utf8', 0, pos);
}
