/**
 * What one Parquet column holds, as the encoder converts values into it. `string` takes JSON
 * strings only (a column whose type always renders as one); `text` takes anything, a string
 * decoded and any other value as its JSON text (a type nobody described); `json` takes anything as
 * its JSON text exactly as rendered.
 */
export type ParquetLeaf =
  | { readonly type: 'boolean' }
  | { readonly type: 'int32' }
  | { readonly type: 'int64' }
  | { readonly type: 'decimal'; readonly precision: number; readonly scale: number }
  | { readonly type: 'float' }
  | { readonly type: 'double' }
  | { readonly type: 'date'; readonly era: Era }
  | { readonly type: 'timestamp'; readonly unit: 'MILLIS' | 'MICROS'; readonly utc: boolean; readonly era: Era }
  | { readonly type: 'uuid' }
  | { readonly type: 'binary' }
  | { readonly type: 'string' }
  | { readonly type: 'text' }
  | { readonly type: 'json' };

/**
 * How an engine writes a year before 1 AD in its JSON: `iso` never does (or as ISO-8601's signed
 * astronomical year), `pg` with a ` BC` suffix on the server's own text (`0044-03-15 BC`), `oracle`
 * as a negative year with no year 0 (`-0044` is 44 BC).
 */
export type Era = 'iso' | 'pg' | 'oracle';

/** A column's Parquet type: the leaf, alone or as the elements of a LIST. */
export interface ParquetColumnType {
  readonly leaf: ParquetLeaf;
  readonly list: boolean;
}

/** The widest DECIMAL written as one: DuckDB, Arrow and Spark all stop at 38 digits. */
export const MAX_DECIMAL_PRECISION = 38;

export const scalar = (leaf: ParquetLeaf): ParquetColumnType => ({ leaf, list: false });

export const STRING: ParquetColumnType = scalar({ type: 'string' });
export const TEXT: ParquetColumnType = scalar({ type: 'text' });
export const JSON_TEXT: ParquetColumnType = scalar({ type: 'json' });
export const BOOLEAN: ParquetColumnType = scalar({ type: 'boolean' });
export const INT32: ParquetColumnType = scalar({ type: 'int32' });
export const INT64: ParquetColumnType = scalar({ type: 'int64' });
export const FLOAT: ParquetColumnType = scalar({ type: 'float' });
export const DOUBLE: ParquetColumnType = scalar({ type: 'double' });
export const BINARY: ParquetColumnType = scalar({ type: 'binary' });
export const UUID: ParquetColumnType = scalar({ type: 'uuid' });

/**
 * DECIMAL(p,s) for a column that holds at most `integerDigits` digits before the point and
 * `scale` after it; a string column past 38 digits (more than any common reader takes as a decimal).
 * A negative scale (PostgreSQL `numeric(5,-2)`, Oracle `NUMBER(5,-2)`) holds integers only.
 */
export function decimalOf(precision: number, scale: number): ParquetColumnType {
  const fraction = Math.max(scale, 0);
  const digits = Math.max(precision - scale, 0) + fraction;
  if (!Number.isInteger(digits) || digits < 1 || digits > MAX_DECIMAL_PRECISION) return STRING;
  return scalar({ type: 'decimal', precision: digits, scale: fraction });
}

/** An integer column of at most `digits` decimal digits: INT32, INT64, or DECIMAL(digits,0). */
export function integerOfDigits(digits: number): ParquetColumnType {
  if (digits <= 9) return INT32;
  if (digits <= 18) return INT64;
  return decimalOf(digits, 0);
}

/** `numeric(38,10)`, `decimal(10,2) unsigned`, `numeric(5,-2)[]` → [38, 10]; null without a typmod. */
export function precisionAndScale(dataType: string): readonly [number, number] | null {
  const m = /\((\d+)(?:,\s*(-?\d+))?\)/.exec(dataType);
  return m === null ? null : [Number(m[1]), m[2] === undefined ? 0 : Number(m[2])];
}

export const date = (era: Era): ParquetColumnType => scalar({ type: 'date', era });

export const timestamp = (unit: 'MILLIS' | 'MICROS', utc: boolean, era: Era = 'iso'): ParquetColumnType =>
  scalar({ type: 'timestamp', unit, utc, era });

/** Microseconds are the finest unit written: a type with more fraction digits becomes a string column. */
export const timestampOfDigits = (digits: number, utc: boolean, era: Era = 'iso'): ParquetColumnType =>
  digits <= 6 ? timestamp('MICROS', utc, era) : STRING;

/** The type as people read it, for error messages and the docs: `DECIMAL(38,10)`, `LIST<INT64>`. */
export function describeParquetType(type: ParquetColumnType): string {
  const leaf = describeLeaf(type.leaf);
  return type.list ? `LIST<${leaf}>` : leaf;
}

function describeLeaf(leaf: ParquetLeaf): string {
  switch (leaf.type) {
    case 'decimal':
      return `DECIMAL(${leaf.precision},${leaf.scale})`;
    case 'timestamp':
      return `TIMESTAMP(${leaf.unit}${leaf.utc ? ', UTC' : ''})`;
    case 'string':
    case 'text':
      return 'STRING';
    default:
      return leaf.type.toUpperCase();
  }
}
