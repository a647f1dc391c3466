import type { ColumnInfo } from '../../connectors/shared/engine-connector.js';
import { sqlServerColumnType } from '../../connectors/sqlserver/sqlserver-types.js';
import {
  BINARY,
  BOOLEAN,
  date,
  decimalOf,
  DOUBLE,
  FLOAT,
  INT32,
  INT64,
  JSON_TEXT,
  type ParquetColumnType,
  STRING,
  TEXT,
  timestamp,
  timestampOfDigits,
  UUID,
} from './parquet-leaf.js';

/**
 * SQL Server (docs/value-mapping.md, "SQL Server"), by the connector's kind:
 * - `decimal(p,s)` → DECIMAL(p,s); `money` → DECIMAL(19,4), `smallmoney` → DECIMAL(10,4).
 * - `datetime2(n)` → TIMESTAMP(MICROS) for n ≤ 6, a string for n = 7 (the default): its 100 ns digit
 *   fits no microsecond timestamp, and nanoseconds in an INT64 stop at 2262, short of 9999-12-31.
 * - `datetimeoffset` → string: Parquet's TIMESTAMP has no stored offset, and converting to UTC would
 *   drop it. `time` → string.
 */
export function sqlServerColumnOf(column: ColumnInfo): ParquetColumnType {
  const type = sqlServerColumnType(column);
  if (type === null) return TEXT;
  switch (type.kind) {
    case 'boolean':
      return BOOLEAN;
    case 'integer':
      return INT32;
    case 'bigint':
      return INT64;
    case 'decimal':
      return decimalOf(type.precision, type.scale);
    case 'money':
      return type.typeName === 'smallmoney' ? decimalOf(10, 4) : decimalOf(19, 4);
    case 'float':
      return DOUBLE;
    case 'real':
      return FLOAT;
    case 'date':
      return date('iso');
    case 'datetime2':
      return timestampOfDigits(type.scale, false);
    case 'datetime':
    case 'smalldatetime':
      return timestamp('MICROS', false);
    case 'uuid':
      return UUID;
    case 'binary':
      return BINARY;
    case 'json':
      return JSON_TEXT;
    case 'datetimeoffset':
    case 'time':
    case 'text':
    case 'long-text':
    case 'xml':
    case 'clr':
    case 'variant':
      return STRING;
    default:
      return TEXT;
  }
}
