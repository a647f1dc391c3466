import type { RowBatch } from '../shared/engine-connector.js';
import { EXACT_SIZE_MIN, isExactUtf8, jsonStringBodyBytes, NOT_TEXT, writeCompactJson, writeJsonStringBody } from '../shared/json-bytes.js';
import { JsonChunkWriter } from '../shared/json-chunk-writer.js';
import { type ReadBudget, ValueTooLargeError } from '../shared/read-budget.js';
import { JSON_ROW_FRAME_BYTES, type RowFrameBytes, writeFrameBytes } from '../shared/row-frame.js';
import { type RawColumn, RenderMode } from './mysql-raw-columns.js';
import type { RawRowSource, RowPacket } from './mysql-raw-rows.js';
import {
  base64Bytes,
  parseIntLikeMysql2,
  writeBase64,
  writeBytes,
  writeBytesBool,
  writeCopy,
  writeDateText,
  writeIntBool,
  writeIntDigits,
  writeNull,
} from './mysql-raw-value-writers.js';
import type { RawRow, RawValue } from './mysql-value-encoders.js';

/** Target size of a rendered chunk: large enough that per-chunk costs downstream vanish. */
export const RAW_CHUNK_BYTES = 128 * 1024;

/**
 * Bytes any value's JSON may take per wire byte (a control character's `\u00XX`); quotes and
 * `null` fit in the per-column room of `rowOverhead`. Rows up to ROOMY_ROW_BYTES get that room
 * once, up front; larger ones value by value, so a huge value is not sized six times over.
 */
const WORST_BYTES_PER_BYTE = 6;
const ROOMY_ROW_BYTES = 4 * 1024;

const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const QUOTE = 34;

/** A row packet that does not hold the values its result announced. */
export class MalformedRowError extends Error {}

/** One batch of rows, already rendered: `length` rows (as for a batch of parsed rows) in `chunks`. */
export interface RenderedRows {
  readonly length: number;
  readonly chunks: readonly RowBatch[];
}

export const NO_ROWS: RenderedRows = { length: 0, chunks: [] };

/**
 * Renders text-protocol row packets as JSON objects in the read's row frame (by default: joined
 * with commas), straight from the wire bytes: the output is byte-identical to createBatchRenderer's
 * for mysql2's rows of the same packets (test/integration/mysql-raw-render-differential.spec.ts),
 * and on the fast paths no value becomes a JS string. Rows go into a chunk buffer, handed on at
 * ~RAW_CHUNK_BYTES (a large row grows it); the batch is full once its values hold `batchBytes` or
 * it has `batchRows` rows. A value larger than what the result may still hold fails with
 * ValueTooLargeError before it is rendered.
 */
export class RawRowRenderer extends JsonChunkWriter {
  private rows = 0;
  private bytes = 0;
  /** mysql2's values of the row being rendered, parsed once a `mysql2` value needs them. */
  private parsed: RawRow | undefined;
  /** Room a row needs besides its values: the frame's bytes, braces, every key and a `null` for each. */
  private readonly rowOverhead: number;
  /** The row being rendered has room for any value's worst case already. */
  private roomy = false;

  constructor(
    private readonly columns: readonly RawColumn[],
    private readonly source: RawRowSource,
    private readonly budget: ReadBudget,
    private readonly table: string,
    private readonly frame: RowFrameBytes = JSON_ROW_FRAME_BYTES,
  ) {
    // A batch is several chunks: its last one, cut short, is handed on as a copy.
    super(RAW_CHUNK_BYTES, true);
    // 2: the braces; with the JSON frame's comma, the 3 it always was.
    this.rowOverhead = columns.reduce((sum, c) => sum + c.prefix.length + 4, 2) + frame.bytes;
  }

  get isFull(): boolean {
    return this.rows >= this.budget.batchRows || this.bytes >= this.budget.batchBytes;
  }

  /** Renders one row; true once the batch is full. Throws ValueTooLargeError or MalformedRowError. */
  render(packet: RowPacket): boolean {
    const data = packet.buffer;
    const end = packet.end;
    let p = packet.offset;
    const wireBytes = end - p;
    this.roomy = wireBytes <= ROOMY_ROW_BYTES;
    const room = this.roomy ? WORST_BYTES_PER_BYTE * wireBytes : 2 * wireBytes;
    // A chunk that cannot take the row as it is likely to come out is handed on first.
    if (this.chunkRows > 0 && this.pos + this.rowOverhead + room > this.out.length) this.flushChunk();
    const remaining = this.budget.remainingBytes();
    const rowStart = this.pos;
    this.parsed = undefined;
    this.ensure(this.roomy ? room : 0);
    let out = this.out;
    let pos = this.pos;
    const frame = this.frame;
    // The JSON frame keeps the single comma write it had before frames; any other is copied.
    if (frame.isJson) {
      if (this.chunkRows > 0) out[pos++] = COMMA;
    } else {
      if (this.chunkRows > 0) pos = writeFrameBytes(frame.separator, out, pos);
      pos = writeFrameBytes(frame.open, out, pos);
    }
    const columns = this.columns;
    const n = columns.length;
    if (n === 0) out[pos++] = OPEN_BRACE;
    let bytes = 0;
    try {
      for (let c = 0; c < n; c++) {
        const column = columns[c];
        pos = writeBytes(column.prefix, out, pos);
        if (p >= end) throw new MalformedRowError(`a row has fewer than ${n} values`);
        const tag = data[p++];
        let length: number;
        if (tag < 0xfb) {
          length = tag;
        } else if (tag === 0xfb) {
          pos = writeNull(out, pos);
          continue;
        } else if (tag === 0xfc) {
          length = data[p] | (data[p + 1] << 8);
          p += 2;
        } else if (tag === 0xfd) {
          length = data[p] | (data[p + 1] << 8) | (data[p + 2] << 16);
          p += 3;
        } else if (tag === 0xfe && p + 8 <= end && data.readUInt32LE(p + 4) === 0) {
          length = data.readUInt32LE(p);
          p += 8;
        } else {
          throw new MalformedRowError('a value with an invalid length');
        }
        const valueEnd = p + length;
        if (valueEnd > end) throw new MalformedRowError('a value runs past its row');
        if (length > remaining) throw new ValueTooLargeError(this.table, length, remaining);
        bytes += length;
        this.pos = pos;
        pos = this.writeValue(column, c, data, p, valueEnd, packet);
        out = this.out;
        p = valueEnd;
      }
    } catch (error) {
      // Nothing of a row that fails is kept.
      this.pos = rowStart;
      throw error;
    }
    out[pos++] = CLOSE_BRACE;
    if (!frame.isJson) pos = writeFrameBytes(frame.close, out, pos);
    this.pos = pos;
    this.chunkRows++;
    this.rows++;
    this.bytes += bytes;
    return this.isFull;
  }

  /** The batch so far (its last chunk cut short); the next batch starts empty. */
  take(): RenderedRows {
    this.flushChunk();
    if (this.rows === 0) return NO_ROWS;
    const batch: RenderedRows = { length: this.rows, chunks: this.takeChunks() };
    this.rows = 0;
    this.bytes = 0;
    return batch;
  }

  /** Forgets everything rendered and not taken. */
  drop(): void {
    this.dropChunks();
    this.rows = 0;
    this.bytes = 0;
  }

  /** Writes one non-NULL value at `this.pos`; returns the position after it. */
  private writeValue(column: RawColumn, index: number, data: Buffer, start: number, end: number, packet: RowPacket): number {
    const length = end - start;
    let pos: number = NOT_TEXT;
    switch (column.mode) {
      case RenderMode.IntDigits:
        this.ensureValue(length + 1);
        pos = writeIntDigits(data, start, end, this.out, this.pos);
        break;
      case RenderMode.IntBool:
        this.ensureValue(5);
        pos = writeIntBool(data, start, end, this.out, this.pos);
        break;
      case RenderMode.Verbatim:
        this.ensureValue(length);
        pos = writeCopy(data, start, end, this.out, this.pos, false, column.asciiOnly);
        break;
      case RenderMode.Quoted:
        this.ensureValue(length + 2);
        pos = writeCopy(data, start, end, this.out, this.pos, true, column.asciiOnly);
        break;
      case RenderMode.Double:
        // encodeDouble: finite server text ends with a digit; anything else is a JSON string.
        if (length > 0 && data[end - 1] >= 48 && data[end - 1] <= 57) {
          this.ensureValue(length);
          pos = writeCopy(data, start, end, this.out, this.pos, false, column.asciiOnly);
        } else {
          pos = this.writeText(column, data, start, end);
        }
        break;
      case RenderMode.Date:
      case RenderMode.DateTime:
      case RenderMode.Timestamp:
        this.ensureValue(length + 3);
        pos = writeDateText(data, start, end, this.out, this.pos, column.mode !== RenderMode.Date, column.mode === RenderMode.Timestamp);
        break;
      case RenderMode.CompactJson:
        if (isExactUtf8(data, start, end)) {
          this.ensureValue(length);
          pos = writeCompactJson(data, start, end, this.out, this.pos);
        }
        break;
      case RenderMode.Text:
        pos = this.writeText(column, data, start, end);
        break;
      case RenderMode.Base64:
        this.ensureValue(base64Bytes(length));
        pos = writeBase64(data, start, end, this.out, this.pos);
        break;
      case RenderMode.BytesBool:
        this.ensureValue(5);
        pos = writeBytesBool(data, start, end, this.out, this.pos);
        break;
    }
    return pos === NOT_TEXT ? this.writeDecoded(column, index, data, start, end, packet) : pos;
  }

  private writeText(column: RawColumn, data: Buffer, start: number, end: number): number {
    const length = end - start;
    this.ensureValue((length < EXACT_SIZE_MIN ? 6 * length : jsonStringBodyBytes(data, start, end)) + 2);
    const out = this.out;
    out[this.pos] = QUOTE;
    const pos = writeJsonStringBody(data, start, end, out, this.pos + 1, column.asciiOnly);
    if (pos === NOT_TEXT) return NOT_TEXT;
    out[pos] = QUOTE;
    return pos + 1;
  }

  /** mysql2's value of these bytes through the column's encoder: the exact path for everything. */
  private writeDecoded(column: RawColumn, index: number, data: Buffer, start: number, end: number, packet: RowPacket): number {
    const value = this.decode(column, index, data, start, end, packet);
    const json = value === null || value === undefined ? 'null' : column.encoder(value);
    this.ensure(3 * json.length);
    return this.pos + this.out.write(json, this.pos, 'utf8');
  }

  private decode(column: RawColumn, index: number, data: Buffer, start: number, end: number, packet: RowPacket): RawValue {
    switch (column.wire) {
      case 'int':
        return parseIntLikeMysql2(data, start, end);
      case 'latin1':
        return data.toString('latin1', start, end);
      case 'ascii':
        return data.toString('ascii', start, end);
      case 'utf8':
        return data.toString('utf8', start, end);
      case 'bytes':
        return data.subarray(start, end);
      case 'mysql2':
        this.parsed ??= this.source.parse(packet);
        return this.parsed[index];
    }
  }

  /** As ensure, for a value whose worst case the row's up-front room covers when it is roomy. */
  private ensureValue(bytes: number): void {
    if (!this.roomy) this.ensure(bytes);
  }

  /** Room for `bytes` more after `this.pos`, plus what the rest of the row may need. */
  private ensure(bytes: number): void {
    const need = this.pos + bytes + this.rowOverhead;
    if (need > this.out.length) this.grow(need);
  }
}
