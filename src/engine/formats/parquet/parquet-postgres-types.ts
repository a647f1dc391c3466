import type { ColumnInfo } from '../../connectors/shared/engine-connector.js';
import { PgOid, postgresColumnType } from '../../connectors/postgres/postgres-types.js';
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
  precisionAndScale,
  STRING,
  TEXT,
  timestamp,
  UUID,
} from './parquet-leaf.js';

/** Vector types (`int2vector`, `oidvector`): category A, but their text is `1 2 3`, which the connector keeps a string. */
const VECTOR_OIDS: ReadonlySet<number> = new Set([22, 30]);

/**
 * PostgreSQL (docs/value-mapping.md, "PostgreSQL"), by the type OID with domains resolved:
 * - `numeric(p,s)` → DECIMAL(p,s). Unconstrained `numeric`, a domain over numeric (its typmod is not
 *   in `dataType`), and `money` (its scale follows the server's lc_monetary) → string. A `NaN` in a
 *   constrained column fails the job: DECIMAL has no NaN.
 * - `date`, `timestamp`, `timestamptz` → DATE, TIMESTAMP(MICROS), TIMESTAMP(MICROS, UTC); BC values
 *   convert exactly; `infinity` fails the job (no DATE or TIMESTAMP holds it).
 * - `oid` (unsigned 32-bit) → INT64. `time`, `timetz`, `interval` → strings (24:00:00, offsets, months).
 * - arrays → LIST of the element's type; a multi-dimensional value fails the job (the number of
 *   dimensions is not part of a PostgreSQL type).
 */
export function postgresColumnOf(column: ColumnInfo): ParquetColumnType {
  const type = postgresColumnType(column);
  if (type === null) return TEXT;
  if (type.elementOid === undefined) return scalarOf(type.typeOid, column.dataType);
  if (VECTOR_OIDS.has(type.typeOid) || (type.elementDelimiter ?? ',') !== ',') return TEXT;
  const element = scalarOf(type.elementOid, column.dataType);
  return { leaf: element.leaf, list: true };
}

function scalarOf(oid: number, dataType: string): ParquetColumnType {
  switch (oid) {
    case PgOid.bool:
      return BOOLEAN;
    case PgOid.int2:
    case PgOid.int4:
      return INT32;
    case PgOid.int8:
    case PgOid.oid:
      return INT64;
    case PgOid.numeric: {
      const typmod = precisionAndScale(dataType);
      return typmod !== null && dataType.startsWith('numeric(') ? decimalOf(typmod[0], typmod[1]) : STRING;
    }
    case PgOid.float4:
      return FLOAT;
    case PgOid.float8:
      return DOUBLE;
    case PgOid.date:
      return date('pg');
    case PgOid.timestamp:
      return timestamp('MICROS', false, 'pg');
    case PgOid.timestamptz:
      return timestamp('MICROS', true, 'pg');
    case PgOid.uuid:
      return UUID;
    case PgOid.json:
    case PgOid.jsonb:
      return JSON_TEXT;
    case PgOid.bytea:
      return BINARY;
    case PgOid.money:
    case PgOid.time:
    case PgOid.timetz:
    case PgOid.interval:
    case PgOid.text:
    case PgOid.varchar:
    case PgOid.bpchar:
    case PgOid.char:
    case PgOid.name:
    case PgOid.xml:
      return STRING;
    default:
      // enums, inet, ranges, extension types: the connector renders them as their text, but
      // nothing here describes them, so any value is taken.
      return TEXT;
  }
}
