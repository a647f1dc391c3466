import type { ColumnInfo } from '../../connectors/shared/engine-connector.js';
import { mysqlColumnType } from '../../connectors/mysql/mysql-types.js';
import {
  BINARY,
  BOOLEAN,
  date,
  decimalOf,
  DOUBLE,
  FLOAT,
  INT32,
  INT64,
  integerOfDigits,
  JSON_TEXT,
  type ParquetColumnType,
  precisionAndScale,
  STRING,
  TEXT,
  timestamp,
} from './parquet-leaf.js';

/**
 * MySQL and MariaDB (docs/value-mapping.md, "MySQL and MariaDB"), by the connector's kind:
 * - integers by width: signed up to INT and unsigned up to MEDIUMINT → INT32, INT UNSIGNED and
 *   BIGINT → INT64, BIGINT UNSIGNED → DECIMAL(20,0) (Parquet's unsigned INT64 annotation is read
 *   as signed by some readers, and DuckDB refuses the INTEGER(64) logical type); BIT(n) the same by n.
 * - DECIMAL(p,s) → DECIMAL(p,s) up to 38 digits, a string above (MySQL allows 65).
 * - DATETIME → TIMESTAMP(MICROS), TIMESTAMP → TIMESTAMP(MICROS, UTC); TIME (negative, past 24 h) → string.
 * - text kinds take any value: MariaDB may report a text column of a view as JSON at read time,
 *   and then its documents come embedded (mysql-value-encoders.ts, kindsForResult).
 */
export function mysqlColumnOf(column: ColumnInfo): ParquetColumnType {
  const type = mysqlColumnType(column);
  if (type === null) return TEXT;
  switch (type.kind) {
    case 'integer':
      return integerOf(type.dataType, type.unsigned);
    case 'boolean':
    case 'bit-boolean':
      return BOOLEAN;
    case 'bit': {
      const width = precisionAndScale(column.dataType)?.[0] ?? 64;
      return width <= 31 ? INT32 : width <= 63 ? INT64 : decimalOf(20, 0);
    }
    case 'decimal': {
      const typmod = precisionAndScale(column.dataType);
      return typmod === null ? STRING : decimalOf(typmod[0], typmod[1]);
    }
    case 'float':
      return FLOAT;
    case 'double':
      return DOUBLE;
    case 'date':
      return date('iso');
    case 'datetime':
      return timestamp('MICROS', false);
    case 'timestamp':
      return timestamp('MICROS', true);
    case 'json':
    case 'json-checked':
      return JSON_TEXT;
    case 'binary':
      return BINARY;
    case 'time':
    case 'spatial':
      return STRING;
    default:
      return TEXT;
  }
}

function integerOf(dataType: string, unsigned: boolean): ParquetColumnType {
  switch (dataType) {
    case 'tinyint':
    case 'smallint':
    case 'mediumint':
    case 'year':
      return INT32;
    case 'int':
    case 'integer':
      return unsigned ? INT64 : INT32;
    case 'bigint':
      return unsigned ? integerOfDigits(20) : INT64;
    default:
      return integerOfDigits(20);
  }
}
