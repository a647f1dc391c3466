/** The kind of one value of a scanned row. */
export const JsonKind = { Null: 0, True: 1, False: 2, Number: 3, String: 4, Object: 5, Array: 6 } as const;
export type JsonKind = (typeof JsonKind)[keyof typeof JsonKind];

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export class MalformedRowsError extends Error {}

/**
 * One row of a batch, valid only inside the callback it is handed to: its arrays are reused for
 * the next row. Values are by position, in the row's key order (the projection's order).
 */
export class JsonRow {
  /** The batch the ranges point into. */
  bytes: Buffer = Buffer.alloc(0);
  /** Values in this row. */
  count = 0;
  private kinds = new Uint8Array(16);
  private starts = new Uint32Array(16);
  private ends = new Uint32Array(16);
  private escapes = new Uint8Array(16);

  kind(index: number): JsonKind {
    return this.kinds[index] as JsonKind;
  }

  /** Where the value's JSON text starts in `bytes` (a string's opening quote). */
  start(index: number): number {
    return this.starts[index];
  }

  /** Where the value's JSON text ends in `bytes`, exclusive (after a string's closing quote). */
  end(index: number): number {
    return this.ends[index];
  }

  /** A string value written with a backslash escape: its bytes between the quotes are not its text. */
  escaped(index: number): boolean {
    return this.escapes[index] === 1;
  }

  /** A string's decoded text; any other value's JSON text. */
  text(index: number): string {
    const start = this.starts[index];
    const end = this.ends[index];
    if (this.kinds[index] !== JsonKind.String) return this.bytes.toString('utf8', start, end);
    if (this.escapes[index] === 0) return this.bytes.toString('utf8', start + 1, end - 1);
    return JSON.parse(this.bytes.toString('utf8', start, end)) as string;
  }

  /** The value's JSON text, exactly as rendered. */
  raw(index: number): string {
    return this.bytes.toString('utf8', this.starts[index], this.ends[index]);
  }

  /** @internal */
  push(kind: JsonKind, start: number, end: number, escaped: boolean): void {
    const i = this.count;
    if (i === this.kinds.length) this.grow();
    this.kinds[i] = kind;
    this.starts[i] = start;
    this.ends[i] = end;
    this.escapes[i] = escaped ? 1 : 0;
    this.count = i + 1;
  }

  private grow(): void {
    const size = this.kinds.length * 2;
    const kinds = new Uint8Array(size);
    kinds.set(this.kinds);
    const starts = new Uint32Array(size);
    starts.set(this.starts);
    const ends = new Uint32Array(size);
    ends.set(this.ends);
    const escapes = new Uint8Array(size);
    escapes.set(this.escapes);
    this.kinds = kinds;
    this.starts = starts;
    this.ends = ends;
    this.escapes = escapes;
  }
}

/**
 * Walks a batch of rows as the connectors render them (`{…},{…}`: compact JSON objects joined with
 * commas, docs/value-mapping.md) and hands each row's values to `visit`, as byte ranges into the
 * batch: nothing is parsed or copied unless the visitor asks (JsonRow.text). This is what lets
 * every format be derived from the one rendering whose fidelity the suites prove, on every engine.
 * Returns the number of rows.
 */
export function scanRows(json: Buffer, visit: (row: JsonRow) => void, row: JsonRow = new JsonRow()): number {
  const length = json.length;
  row.bytes = json;
  let pos = 0;
  let rows = 0;
  while (pos < length) {
    if (json[pos] !== OPEN_BRACE) throw malformed(pos, 'a row object');
    pos++;
    row.count = 0;
    if (json[pos] === CLOSE_BRACE) {
      pos++;
    } else {
      for (;;) {
        // The key: a string, then a colon.
        if (json[pos] !== QUOTE) throw malformed(pos, 'a key');
        pos = stringEnd(json, pos + 1);
        if (json[pos] !== COLON) throw malformed(pos, "':'");
        pos = value(json, pos + 1, row);
        const next = json[pos];
        pos++;
        if (next === CLOSE_BRACE) break;
        if (next !== COMMA) throw malformed(pos - 1, "',' or '}'");
      }
    }
    visit(row);
    rows++;
    if (pos < length) {
      if (json[pos] !== COMMA) throw malformed(pos, "',' between rows");
      pos++;
    }
  }
  return rows;
}

/**
 * Lays the elements of the array at `index` of `row` into `into`, as byte ranges of the same batch,
 * so a list's elements go through the very conversions of a row's values. Only the top level of the
 * one value is split: an element that is a 64-bit integer or a JSON document keeps its exact text.
 */
export function scanArrayElements(row: JsonRow, index: number, into: JsonRow): void {
  const json = row.bytes;
  const end = row.end(index) - 1;
  let pos = row.start(index) + 1;
  into.bytes = json;
  into.count = 0;
  while (pos < end) {
    pos = value(json, pos, into);
    if (pos < end) {
      if (json[pos] !== COMMA) throw malformed(pos, "',' between array elements");
      pos++;
      if (pos === end) throw malformed(pos, 'an array element');
    }
  }
}

/** Reads one value at `pos` into `row`; returns the position after it. */
function value(json: Buffer, pos: number, row: JsonRow): number {
  const first = json[pos];
  switch (first) {
    case QUOTE: {
      const end = stringEnd(json, pos + 1);
      row.push(JsonKind.String, pos, end, lastStringEscaped);
      return end;
    }
    case OPEN_BRACE:
    case OPEN_BRACKET: {
      const end = nestedEnd(json, pos);
      row.push(first === OPEN_BRACE ? JsonKind.Object : JsonKind.Array, pos, end, false);
      return end;
    }
    case 0x6e: // n
      row.push(JsonKind.Null, pos, pos + 4, false);
      return pos + 4;
    case 0x74: // t
      row.push(JsonKind.True, pos, pos + 4, false);
      return pos + 4;
    case 0x66: // f
      row.push(JsonKind.False, pos, pos + 5, false);
      return pos + 5;
    default: {
      let end = pos;
      const length = json.length;
      while (end < length) {
        const byte = json[end];
        if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET) break;
        end++;
      }
      if (end === pos) throw malformed(pos, 'a value');
      row.push(JsonKind.Number, pos, end, false);
      return end;
    }
  }
}

/** Whether the string stringEnd last walked held an escape: one pass finds both. */
let lastStringEscaped = false;

/** The position after the closing quote of a string whose text starts at `pos`. */
function stringEnd(json: Buffer, pos: number): number {
  const length = json.length;
  let escaped = false;
  while (pos < length) {
    const byte = json[pos];
    if (byte === QUOTE) {
      lastStringEscaped = escaped;
      return pos + 1;
    }
    if (byte === BACKSLASH) {
      escaped = true;
      pos += 2;
    } else pos++;
  }
  throw malformed(length, 'the end of a string');
}

/** The position after the object or array that opens at `pos`. */
function nestedEnd(json: Buffer, pos: number): number {
  const length = json.length;
  let depth = 0;
  while (pos < length) {
    const byte = json[pos];
    if (byte === QUOTE) {
      pos = stringEnd(json, pos + 1);
      continue;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
    else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return pos + 1;
    }
    pos++;
  }
  throw malformed(length, 'the end of a nested value');
}

function malformed(pos: number, expected: string): MalformedRowsError {
  return new MalformedRowsError(`rendered rows are not the JSON the formats expect: ${expected} expected at byte ${pos}`);
}
