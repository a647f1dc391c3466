import { isAscii } from 'node:buffer';
import { copyRun, isExactUtf8, NOT_TEXT } from '../shared/json-bytes.js';

/*
 * Byte-wise writers of single values for the raw row renderer. Each writes what the matching
 * encoder of mysql-value-encoders.ts writes for mysql2's value of these bytes, or returns NOT_TEXT
 * when the bytes are outside what it reproduces exactly (the renderer then decodes the value).
 * The caller has made room for the value's worst case.
 */

const QUOTE = 34;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
const SPACE = 32;
const TRUE = Buffer.from('true', 'latin1');
const FALSE = Buffer.from('false', 'latin1');
const NULL = Buffer.from('null', 'latin1');
/** Digits a double holds exactly however they are accumulated (mysql2 multiplies by ten). */
const EXACT_DIGITS = 15;
/** Bytes per base64 piece: a multiple of 3, so the pieces' base64 joins into the whole's. */
const BASE64_PIECE = 3 * 16 * 1024;
/** Shorter values are checked byte by byte while copied; longer ones natively. */
const NATIVE_CHECK_MIN = 64;

export function writeBytes(bytes: Buffer, out: Buffer, pos: number): number {
  for (let i = 0; i < bytes.length; i++) out[pos++] = bytes[i];
  return pos;
}

export const writeNull = (out: Buffer, pos: number): number => writeBytes(NULL, out, pos);

export const writeBool = (value: boolean, out: Buffer, pos: number): number => writeBytes(value ? TRUE : FALSE, out, pos);

const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;

/** True when mysql2's string of these bytes is their UTF-8 reading (asciiOnly: latin1/ascii decoding). */
function readsAsUtf8(data: Buffer, start: number, end: number, asciiOnly: boolean): boolean {
  const bytes = data.subarray(start, end);
  return asciiOnly ? isAscii(bytes) : isExactUtf8(data, start, end);
}

/**
 * String(parseIntNoBigCheck(bytes)): an optional minus, digits without leading zeros, `0` for
 * zero (also `-0`). More digits than a double holds exactly, a `+` or any other byte: NOT_TEXT.
 */
export function writeIntDigits(data: Buffer, start: number, end: number, out: Buffer, pos: number): number {
  let first = start < end && data[start] === MINUS ? start + 1 : start;
  const negative = first > start;
  while (first < end - 1 && data[first] === ZERO) first++;
  if (first >= end || end - first > EXACT_DIGITS) return NOT_TEXT;
  for (let i = first; i < end; i++) if (!isDigit(data[i])) return NOT_TEXT;
  if (negative && !(end - first === 1 && data[first] === ZERO)) out[pos++] = MINUS;
  for (let i = first; i < end; i++) out[pos++] = data[i];
  return pos;
}

/** parseIntNoBigCheck(bytes) !== 0 as JSON; NOT_TEXT unless the bytes are an optional minus and digits. */
export function writeIntBool(data: Buffer, start: number, end: number, out: Buffer, pos: number): number {
  let i = start < end && data[start] === MINUS ? start + 1 : start;
  if (i >= end) return NOT_TEXT;
  let zero = true;
  for (; i < end; i++) {
    const c = data[i];
    if (!isDigit(c)) return NOT_TEXT;
    if (c !== ZERO) zero = false;
  }
  return writeBool(!zero, out, pos);
}

/** The string, optionally in quotes, as is (it needs no escaping: DECIMAL, TIME, BIGINT text). */
export function writeCopy(data: Buffer, start: number, end: number, out: Buffer, pos: number, quoted: boolean, asciiOnly: boolean): number {
  if (quoted) out[pos++] = QUOTE;
  if (end - start >= NATIVE_CHECK_MIN) {
    if (!readsAsUtf8(data, start, end, asciiOnly)) return NOT_TEXT;
    pos = copyRun(data, start, end, out, pos);
  } else {
    let high = 0;
    for (let i = start; i < end; i++) {
      const c = data[i];
      high |= c;
      out[pos++] = c;
    }
    if (high >= 0x80 && !readsAsUtf8(data, start, end, asciiOnly)) return NOT_TEXT;
  }
  if (quoted) out[pos++] = QUOTE;
  return pos;
}

/** `0000-00-00…`: MySQL's zero date, which the encoders render as null. */
function isZeroDate(data: Buffer, start: number, end: number): boolean {
  if (end - start < 10) return false;
  for (let i = 0; i < 10; i++) if (data[start + i] !== (i === 4 || i === 7 ? MINUS : ZERO)) return false;
  return true;
}

/**
 * DATE, DATETIME and TIMESTAMP text: null for a zero date, else quoted, with `T` for the space
 * after the date (`iso`) and a `Z` after it all (`zulu`). ASCII only: the encoders cut the string
 * at character offsets, which are byte offsets only then.
 */
export function writeDateText(data: Buffer, start: number, end: number, out: Buffer, pos: number, iso: boolean, zulu: boolean): number {
  if (data[start] === ZERO && isZeroDate(data, start, end)) return writeNull(out, pos);
  out[pos++] = QUOTE;
  const first = pos;
  let high = 0;
  for (let i = start; i < end; i++) {
    const c = data[i];
    high |= c;
    out[pos++] = c;
  }
  if (high >= 0x80) return NOT_TEXT;
  if (iso && end - start > 10 && data[start + 10] === SPACE) out[first + 10] = 84; // T
  if (zulu) out[pos++] = 90; // Z
  out[pos++] = QUOTE;
  return pos;
}

/** Bytes as a quoted base64 string, encoded in pieces so no large string is made. */
export function writeBase64(data: Buffer, start: number, end: number, out: Buffer, pos: number): number {
  out[pos++] = QUOTE;
  for (let at = start; at < end; at += BASE64_PIECE) {
    pos += out.write(data.toString('base64', at, Math.min(end, at + BASE64_PIECE)), pos, 'latin1');
  }
  out[pos++] = QUOTE;
  return pos;
}

export const base64Bytes = (length: number): number => 4 * Math.ceil(length / 3) + 2;

export function writeBytesBool(data: Buffer, start: number, end: number, out: Buffer, pos: number): number {
  for (let i = start; i < end; i++) if (data[i] !== 0) return writeBool(true, out, pos);
  return writeBool(false, out, pos);
}

/** mysql2's parseIntNoBigCheck, for the values writeIntDigits and writeIntBool decline. */
export function parseIntLikeMysql2(data: Buffer, start: number, end: number): number {
  if (end === start) return 0;
  let i = start;
  let sign = 1;
  if (data[i] === MINUS) {
    i++;
    sign = -1;
  }
  if (i < end && data[i] === 43 /* + */) i++;
  let result = 0;
  for (; i < end; i++) {
    result *= 10;
    result += data[i] - ZERO;
  }
  return result * sign;
}
