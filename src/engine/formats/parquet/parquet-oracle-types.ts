import type { ColumnInfo } from '../../connectors/shared/engine-connector.js';
import { oracleColumnType, type OracleColumnType } from '../../connectors/oracle/oracle-types.js';
import {
  BINARY,
  BOOLEAN,
  decimalOf,
  DOUBLE,
  FLOAT,
  integerOfDigits,
  JSON_TEXT,
  type ParquetColumnType,
  STRING,
  TEXT,
  timestamp,
  timestampOfDigits,
} from './parquet-leaf.js';

/** NUMBER's largest precision: what INTEGER (NUMBER(*,0)) holds. */
const NUMBER_DIGITS = 38;

/**
 * Oracle (docs/value-mapping.md, "Oracle"), by the connector's kind:
 * - `NUMBER(p)` → INT32 (p ≤ 9), INT64 (p ≤ 18) or DECIMAL(p,0); `NUMBER(p,-n)` holds p + n digits;
 *   `INTEGER` → DECIMAL(38,0). `NUMBER(p,s)` → DECIMAL(p,s) (DECIMAL(s,s) when s > p). `NUMBER` and
 *   `FLOAT` without precision → string: their values have any scale.
 * - `DATE` → TIMESTAMP(MICROS) (it has a time of day); `TIMESTAMP(n)` and `WITH LOCAL TIME ZONE` →
 *   TIMESTAMP(MICROS[, UTC]) for n ≤ 6, a string above; `WITH TIME ZONE` → string (its stored offset).
 *   BC years (`-0044`, Oracle's year numbering) convert exactly; the day keeps its label (Oracle counts
 *   days before 1582-10-15 in the Julian calendar, Parquet readers in the proleptic Gregorian one).
 * - `VECTOR` → JSON text (dense or sparse); intervals, ROWID, XMLTYPE → strings.
 */
export function oracleColumnOf(column: ColumnInfo): ParquetColumnType {
  const type = oracleColumnType(column);
  if (type === null) return TEXT;
  switch (type.kind) {
    case 'integer':
      return integerOf(type);
    case 'decimal':
      // NUMBER(*,s) has no precision in the catalog: it is NUMBER(38,s).
      return type.dataType === 'NUMBER' && type.scale !== null ? decimalOf(type.precision ?? NUMBER_DIGITS, type.scale) : STRING;
    case 'binary_float':
      return FLOAT;
    case 'binary_double':
      return DOUBLE;
    case 'date':
      return timestamp('MICROS', false, 'oracle');
    case 'timestamp':
      return timestampOfDigits(type.fractionDigits ?? 6, false, 'oracle');
    case 'timestamp_ltz':
      return timestampOfDigits(type.fractionDigits ?? 6, true, 'oracle');
    case 'boolean':
      return BOOLEAN;
    case 'binary':
    case 'long_raw':
    case 'blob':
      return BINARY;
    case 'json':
    case 'vector':
      return JSON_TEXT;
    case 'timestamp_tz':
    case 'interval_ym':
    case 'interval_ds':
    case 'text':
    case 'char':
    case 'long':
    case 'clob':
    case 'rowid':
    case 'xml':
      return STRING;
    default:
      return TEXT;
  }
}

function integerOf(type: OracleColumnType): ParquetColumnType {
  const precision = type.precision ?? NUMBER_DIGITS;
  return integerOfDigits(precision - Math.min(type.scale ?? 0, 0));
}
