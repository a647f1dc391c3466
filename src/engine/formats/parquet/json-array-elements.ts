import { JsonKind, type JsonRow, MalformedRowsError } from '../json-row-scanner.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Lays the elements of the array at `index` of `row` into `into`, as byte ranges of the same batch,
 * so a LIST's elements go through the very conversions of scalar values (JsonRow.text, kind, raw).
 * Only the top level of one value is split: a 64-bit integer or a JSON document element keeps its
 * exact text, which JSON.parse would not. The rendering is compact (no whitespace), as every
 * connector writes it and scanRows relies on.
 */
export function arrayElements(row: JsonRow, index: number, into: JsonRow): void {
  const bytes = row.bytes;
  const end = row.end(index) - 1;
  let pos = row.start(index) + 1;
  into.bytes = bytes;
  into.count = 0;
  while (pos < end) {
    const first = bytes[pos];
    let valueEnd: number;
    switch (first) {
      case QUOTE:
        valueEnd = stringEnd(bytes, pos + 1);
        into.push(JsonKind.String, pos, valueEnd, hasBackslash(bytes, pos + 1, valueEnd - 1));
        break;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        valueEnd = nestedEnd(bytes, pos);
        into.push(first === OPEN_BRACE ? JsonKind.Object : JsonKind.Array, pos, valueEnd, false);
        break;
      case 0x6e: // n
        valueEnd = pos + 4;
        into.push(JsonKind.Null, pos, valueEnd, false);
        break;
      case 0x74: // t
        valueEnd = pos + 4;
        into.push(JsonKind.True, pos, valueEnd, false);
        break;
      case 0x66: // f
        valueEnd = pos + 5;
        into.push(JsonKind.False, pos, valueEnd, false);
        break;
      default:
        valueEnd = pos;
        while (valueEnd < end && bytes[valueEnd] !== COMMA) valueEnd++;
        if (valueEnd === pos) throw malformed(pos);
        into.push(JsonKind.Number, pos, valueEnd, false);
    }
    pos = valueEnd;
    if (pos < end) {
      if (bytes[pos] !== COMMA) throw malformed(pos);
      pos++;
      if (pos === end) throw malformed(pos);
    }
  }
}

function hasBackslash(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] === BACKSLASH) return true;
  return false;
}

function stringEnd(bytes: Buffer, pos: number): number {
  while (pos < bytes.length) {
    const byte = bytes[pos];
    if (byte === QUOTE) return pos + 1;
    pos += byte === BACKSLASH ? 2 : 1;
  }
  throw malformed(pos);
}

function nestedEnd(bytes: Buffer, pos: number): number {
  let depth = 0;
  while (pos < bytes.length) {
    const byte = bytes[pos];
    if (byte === QUOTE) {
      pos = stringEnd(bytes, pos + 1);
      continue;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
    else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return pos + 1;
    }
    pos++;
  }
  throw malformed(pos);
}

function malformed(pos: number): MalformedRowsError {
  return new MalformedRowsError(`rendered rows are not the JSON the formats expect: an array element expected at byte ${pos}`);
}
