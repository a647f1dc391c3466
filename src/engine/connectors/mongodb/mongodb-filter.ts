import type { Document } from 'mongodb';
import { mongodb } from './mongodb-driver.js';
import type { FilterCondition, FilterScalar } from '../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { type FieldClauses, walkFilters } from '../shared/filter-walk.js';
import { type BsonTypeName, mongoFieldType } from './mongodb-types.js';

/**
 * Filters → ONE MongoDB query document with the semantics of the SQL engines (sql/sql-column-filter.ts):
 *
 * - `eq`/`in` one value → `{f: {$eq: v}}`; several → `$in`. `eq [null]` → `{$eq: null}`, which in
 *   MongoDB matches null AND missing fields: the natural analogue of SQL NULL. A null inside a
 *   list adds null to the `$in` (matches v or null/missing), as `IN (…) OR IS NULL` does.
 * - `ne`/`nin` → `$nin` of the values plus null: like SQL `<>`/NOT IN, a row whose field is
 *   null (or missing) never matches. `ne [null]` → `{$ne: null}`: exists and is not null.
 * - `gt gte lt lte` → `$gt…`; `between [a, b]` → `{$gte: a, $lte: b}` (inclusive). A null bound
 *   matches nothing, as the SQL comparison with NULL; so does `like [null]`.
 * - `like` → an anchored, escaped, case-sensitive `$regex` (see likeToRegex).
 *
 * Every operator of a field is its own clause: a field with one clause is a plain key of the
 * document, a field with several puts each under `$and` (so `eq` is never lost next to `gt`).
 *
 * MongoDB compares values of different BSON types by type order, never by conversion, so a
 * string value is converted to the type sampled at that path (`engineType.bsonTypes`): Date
 * (ISO-8601; `YYYY-MM-DD` is midnight UTC, no offset means UTC), ObjectId (24 hex digits), UUID
 * (binData subtype 4), Decimal128, Long/number, boolean. When the path also holds strings, the
 * membership operators match both forms; comparisons use the converted one. JSON numbers stay
 * numbers (MongoDB compares all numeric types with each other), except on a Decimal128 path,
 * where 0.1 becomes Decimal128 0.1 (as SQL binds it), and booleans are used as given.
 *
 * The result is a plain query document (BSON classes only as values), so it can be evaluated
 * outside MongoDB too (e.g. with mingo; its $regex uses JS RegExp, which reads the patterns the
 * same way).
 */
/** A condition no document satisfies (SQL comparisons with NULL). */
const NEVER: Readonly<Document> = { $in: [] };

const REGEX_META = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);

/**
 * SQL LIKE → PCRE, for `$regex` with `$options: 's'`: `%` → `.*`, `_` → `.` (with `s`, both also
 * match newlines, as in SQL), every regex metacharacter escaped, `\` escapes the next character
 * (PostgreSQL's and MySQL's default LIKE escape; a trailing `\` is literal). Anchored at both
 * ends: `^` and `$(?!\n)`, since a bare `$` in PCRE also matches before a final newline.
 */
export function likeToRegex(pattern: string): string {
  let out = '^';
  let escaped = false;
  let lastWasAny = false;
  for (const c of pattern) {
    if (!escaped && c === '\\') {
      escaped = true;
      continue;
    }
    if (!escaped && c === '%') {
      // `%%` is one `.*`: repeated unbounded groups only make backtracking slower.
      if (!lastWasAny) out += '.*';
      lastWasAny = true;
      continue;
    }
    lastWasAny = false;
    if (!escaped && c === '_') out += '.';
    else out += REGEX_META.has(c) ? '\\' + c : c;
    escaped = false;
  }
  if (escaped) out += '\\\\';
  // A trailing `.*` (with `s`) already consumes everything up to the end.
  return lastWasAny ? out : out + '$(?!\\n)';
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:\s*(Z|[+-]\d{2}(?::?\d{2})?))?)?$/i;

/** Strict ISO-8601 (date, or date-time with optional offset; none means UTC) → Date, or null. */
export function parseIsoDate(text: string): Date | null {
  const m = ISO_DATE.exec(text.trim());
  if (m === null) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((part) => (part === undefined ? 0 : Number(part)));
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter maps years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return null;
  date.setUTCHours(hour, minute, second, millis);
  const zone = m[8];
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    const offset = (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || '0')) * (digits[0] === '-' ? -1 : 1);
    date.setTime(date.getTime() - offset * 60_000);
  }
  return Number.isNaN(date.getTime()) ? null : date;
}

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER_TEXT = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function toNumeric(text: string, types: readonly BsonTypeName[]): unknown {
  if (!DECIMAL_TEXT.test(text)) return undefined;
  if (types.includes('decimal')) {
    try {
      return mongodb().Decimal128.fromString(text);
    } catch {
      // More than 34 significant digits: a double still compares sensibly.
    }
  }
  if (types.includes('long') && INTEGER_TEXT.test(text)) {
    const big = BigInt(text);
    if (big >= INT64_MIN && big <= INT64_MAX) return mongodb().Long.fromString(big.toString());
  }
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** A string filter value as the BSON type sampled at the path, or undefined to keep the string. */
function convertString(text: string, types: readonly BsonTypeName[]): unknown {
  if (types.includes('date')) {
    const date = parseIsoDate(text);
    if (date !== null) return date;
  }
  if (types.includes('objectId') && OBJECT_ID.test(text)) return mongodb().ObjectId.createFromHexString(text);
  if (types.includes('uuid') && UUID_TEXT.test(text)) return new (mongodb().UUID)(text);
  if (types.includes('decimal') || types.includes('long') || types.includes('int') || types.includes('double')) {
    const numeric = toNumeric(text.trim(), types);
    if (numeric !== undefined) return numeric;
  }
  if (types.includes('bool') && (text === 'true' || text === 'false')) return text === 'true';
  return undefined;
}

const hasBinaryNumbers = (types: readonly BsonTypeName[]): boolean => types.some((t) => t === 'int' || t === 'long' || t === 'double');

/** The values a filter value stands for at this path: the converted one first. */
function candidates(value: Exclude<FilterScalar, null>, types: readonly BsonTypeName[]): unknown[] {
  if (typeof value === 'number') {
    // A JSON number means the decimal it is written as (SQL binds 0.1 as numeric 0.1): MongoDB
    // compares a double with a Decimal128 exactly, and double 0.1 is not decimal 0.1.
    if (!types.includes('decimal') || !Number.isFinite(value)) return [value];
    const decimal = mongodb().Decimal128.fromString(String(value));
    return hasBinaryNumbers(types) ? [decimal, value] : [decimal];
  }
  if (typeof value !== 'string') return [value];
  const converted = convertString(value, types);
  if (converted === undefined) return [value];
  return types.includes('string') ? [converted, value] : [converted];
}

function membership(list: readonly FilterScalar[], types: readonly BsonTypeName[], negated: boolean): Document {
  const present: unknown[] = [];
  let hasNull = false;
  for (const value of list) {
    if (value === null) hasNull = true;
    else present.push(...candidates(value, types));
  }
  if (negated) return present.length === 0 ? { $ne: null } : { $nin: [...present, null] };
  if (present.length === 0) return { $eq: null };
  if (present.length === 1 && !hasNull) return { $eq: present[0] };
  return { $in: hasNull ? [...present, null] : present };
}

/** A comparison with a null (or missing) bound matches nothing, as the SQL comparison with NULL. */
const isMissing = (value: FilterScalar | undefined): value is null | undefined => value === null || value === undefined;

function fieldClauses(types: readonly BsonTypeName[]): FieldClauses<Document> {
  return {
    membership: (list, negated) => membership(list, types, negated),
    comparison: (operator, value) => (isMissing(value) ? NEVER : { ['$' + operator]: candidates(value, types)[0] }),
    between: (low, high) =>
      isMissing(low) || isMissing(high) ? NEVER : { $gte: candidates(low, types)[0], $lte: candidates(high, types)[0] },
    like: (pattern) => (isMissing(pattern) ? NEVER : { $regex: likeToRegex(String(pattern)), $options: 's' }),
  };
}

/** A path the query language reads as a field: no empty segment, no `$` operator, no NUL. */
export function isFieldPath(path: string): boolean {
  return path.split('.').every((segment) => segment !== '' && !segment.startsWith('$') && !segment.includes('\u0000'));
}

/**
 * The query document for `filters` (keyed by field path). `columns` are the collection's
 * discovered fields, for their sampled types; a path without type info keeps its values as given.
 * Keys that are not field paths are skipped: the planner has already rejected them, and they
 * must never reach the server as operators.
 */
export function buildMongoFilter(filters: Readonly<Record<string, FilterCondition>> | undefined, columns: readonly ColumnInfo[]): Document {
  const fields = walkFilters(filters ?? {}, columns, (field, column) => {
    if (!isFieldPath(field)) return undefined;
    const types = column === undefined ? [] : (mongoFieldType(column)?.bsonTypes ?? []);
    return fieldClauses(types);
  });
  const single: [string, Document][] = [];
  const and: Document[] = [];
  for (const [field, clauses] of fields) {
    if (clauses.length === 1) single.push([field, clauses[0]]);
    else for (const c of clauses) and.push(Object.fromEntries([[field, c]]));
  }
  // fromEntries defines own keys, so a field named `__proto__` stays a field.
  const query: Document = Object.fromEntries(single);
  if (and.length > 0) query.$and = and;
  return query;
}
