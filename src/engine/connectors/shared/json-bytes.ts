import { isUtf8 } from 'node:buffer';

/*
 * Byte-level JSON writing, shared by the row renderers that write straight from wire bytes (the
 * MySQL raw rows and the PostgreSQL COPY text).
 */

const QUOTE = 34;
const BACKSLASH = 92;
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/** JSON.stringify's short escapes; every other control character becomes `\u00XX`. */
const SHORT_ESCAPES: readonly number[] = (() => {
  const table: number[] = new Array<number>(0x20).fill(0);
  table[0x08] = 98; // b
  table[0x09] = 116; // t
  table[0x0a] = 110; // n
  table[0x0c] = 102; // f
  table[0x0d] = 114; // r
  return table;
})();

const PLAIN = 0;
const ESCAPED = 1;
const NON_ASCII = 2;
/** Per byte: copied as is, escaped, or the start or part of a non-ASCII character. */
const BYTE_CLASS = (() => {
  const table = new Uint8Array(256);
  for (let c = 0; c < 0x20; c++) table[c] = ESCAPED;
  table[QUOTE] = ESCAPED;
  table[BACKSLASH] = ESCAPED;
  for (let c = 0x80; c < 0x100; c++) table[c] = NON_ASCII;
  return table;
})();

/** Returned when the bytes are not text the writer may copy: the caller renders the decoded value. */
export const NOT_TEXT = -1;

/** Runs shorter than this are copied byte by byte: a native copy costs more than it saves. */
const NATIVE_COPY_MIN = 48;
/** Values from this long are copied in runs between escapes rather than byte by byte. */
const RUN_COPY_MIN = 256;

/**
 * Values at least this long get an exact output size (one counting pass) instead of the 6×
 * worst case, so a 16 MiB text never asks for a 96 MiB buffer.
 */
export const EXACT_SIZE_MIN = 64 * 1024;

/**
 * Whether the bytes read back exactly through UTF-8 decoding, i.e. are what mysql2's string is
 * made of. Invalid sequences decode to U+FFFD, so those values take the decoding path.
 */
export function isExactUtf8(data: Buffer, start: number, end: number): boolean {
  return isUtf8(data.subarray(start, end));
}

/**
 * Writes `data[start, end)` (UTF-8 text) as the body of a JSON string exactly as JSON.stringify
 * writes the decoded text: `\"`, `\\`, `\b \f \n \r \t`, `\u00XX` (lowercase) for the other
 * control characters, every other byte as is. Room for 6 bytes per input byte must be there.
 * Returns the position after the body, or NOT_TEXT when the bytes hold a non-ASCII byte and
 * `asciiOnly` is set, or are not valid UTF-8 (nothing reliable is written then).
 */
export function writeJsonStringBody(data: Buffer, start: number, end: number, out: Buffer, pos: number, asciiOnly: boolean): number {
  if (end - start >= RUN_COPY_MIN) return writeLongBody(data, start, end, out, pos, asciiOnly);
  let checked = false;
  for (let i = start; i < end; i++) {
    const c = data[i];
    const kind = BYTE_CLASS[c];
    if (kind === PLAIN) {
      out[pos++] = c;
    } else if (kind === NON_ASCII) {
      // What precedes is ASCII, so the rest decides whether the whole value is valid UTF-8.
      if (!checked && (asciiOnly || !isExactUtf8(data, i, end))) return NOT_TEXT;
      checked = true;
      out[pos++] = c;
    } else {
      pos = writeJsonEscape(c, out, pos);
    }
  }
  return pos;
}

function writeLongBody(data: Buffer, start: number, end: number, out: Buffer, pos: number, asciiOnly: boolean): number {
  let run = start;
  let checked = false;
  for (let i = start; i < end; i++) {
    const kind = BYTE_CLASS[data[i]];
    if (kind === PLAIN) continue;
    if (kind === NON_ASCII) {
      if (!checked && (asciiOnly || !isExactUtf8(data, i, end))) return NOT_TEXT;
      checked = true;
      continue;
    }
    pos = writeJsonEscape(data[i], out, copyRun(data, run, i, out, pos));
    run = i + 1;
  }
  return copyRun(data, run, end, out, pos);
}

/** The JSON escape of byte `c` (a quote, a backslash or a control character), as JSON.stringify writes it. */
export function writeJsonEscape(c: number, out: Buffer, pos: number): number {
  out[pos++] = BACKSLASH;
  if (c === QUOTE || c === BACKSLASH) {
    out[pos++] = c;
  } else if (SHORT_ESCAPES[c] !== 0) {
    out[pos++] = SHORT_ESCAPES[c];
  } else {
    out[pos++] = 117; // u
    out[pos++] = 48;
    out[pos++] = 48;
    out[pos++] = HEX[c >> 4];
    out[pos++] = HEX[c & 15];
  }
  return pos;
}

/** Exact size of what writeJsonStringBody writes for valid text. */
export function jsonStringBodyBytes(data: Buffer, start: number, end: number): number {
  let bytes = end - start;
  for (let i = start; i < end; i++) {
    const c = data[i];
    if (c === QUOTE || c === BACKSLASH) bytes += 1;
    else if (c < 0x20) bytes += SHORT_ESCAPES[c] !== 0 ? 1 : 5;
  }
  return bytes;
}

/** `data[start, end)` copied to `out` at `pos`; returns the position after it. */
export function copyRun(data: Buffer, start: number, end: number, out: Buffer, pos: number): number {
  if (end - start >= NATIVE_COPY_MIN) return pos + data.copy(out, pos, start, end);
  for (let i = start; i < end; i++) out[pos++] = data[i];
  return pos;
}

/**
 * MySQL's JSON text compacted as compactJson (json-text.ts) compacts the decoded string:
 * whitespace outside strings dropped, everything else copied. Byte-wise is the same walk: the
 * bytes it looks at are ASCII, and no byte of a multi-byte UTF-8 sequence is ASCII. The caller
 * has checked the bytes are valid UTF-8 (isExactUtf8). Writes at most `end - start` bytes.
 */
export function writeCompactJson(data: Buffer, start: number, end: number, out: Buffer, pos: number): number {
  let run = start;
  for (let i = start; i < end; i++) {
    const c = data[i];
    if (c === QUOTE) {
      for (i++; i < end; i++) {
        const d = data[i];
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === 32 || c === 10 || c === 13 || c === 9) {
      pos = copyRun(data, run, i, out, pos);
      run = i + 1;
    }
  }
  return copyRun(data, run, end, out, pos);
}
