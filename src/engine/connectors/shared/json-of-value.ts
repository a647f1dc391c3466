import { base64String, checkedJson, jsonDate, jsonNumber, jsonString, quoted } from './json-text.js';

/*
 * JSON text of driver values whose type is not known for sure (a column's values are meant to be
 * of one type, but a driver or a server may hand over another): what fits is rendered as the
 * column's type says, anything else by its own JS shape.
 */

/** A driver value by its own JS shape: the fallback when a value is not what its column type promised. */
export function jsonOfValue(value: unknown): string {
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'number') return jsonNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (Buffer.isBuffer(value)) return base64String(value);
  if (value instanceof Date) return jsonDate(value);
  return jsonString(String(value));
}

/** Server-made text that needs no escaping (decimal digits, dates, times) in quotes; anything else by its shape. */
export const jsonOfPlainText = (value: unknown): string => (typeof value === 'string' ? quoted(value) : jsonOfValue(value));

/** A document of a JSON column the server does not guarantee valid (see checkedJson); anything else by its shape. */
export const jsonOfCheckedDocument = (value: unknown): string => (typeof value === 'string' ? checkedJson(value) : jsonOfValue(value));
