import type { ColumnInfo } from '../../connectors/shared/engine-connector.js';
import { type BsonTypeName, mongoFieldType } from '../../connectors/mongodb/mongodb-types.js';
import { BINARY, BOOLEAN, DOUBLE, INT32, INT64, JSON_TEXT, type ParquetColumnType, STRING, timestamp, UUID } from './parquet-leaf.js';

/** BSON types whose JSON is a string (docs/value-mapping.md, "MongoDB"): a field mixing them is a string column. */
const STRING_RENDERED: ReadonlySet<BsonTypeName> = new Set<BsonTypeName>([
  'string',
  'objectId',
  'symbol',
  'javascript',
  'regex',
  'minKey',
  'maxKey',
  'decimal',
  'uuid',
  'date',
  'binData',
]);

/** A field of a single BSON type (nulls aside) whose values keep a Parquet type of their own. */
const SINGLE: Partial<Readonly<Record<BsonTypeName, ParquetColumnType>>> = {
  int: INT32,
  long: INT64,
  double: DOUBLE,
  bool: BOOLEAN,
  // Date renders with milliseconds and Z: the instant, as BSON stores it.
  date: timestamp('MILLIS', true),
  uuid: UUID,
  binData: BINARY,
  // Decimal128 has NaN, infinities and 34 digits at any exponent (`1E+3`): its exact text.
  decimal: STRING,
};

/**
 * MongoDB has no declared types: a field's type comes from the BSON types discovery sampled at its
 * path (mongodb-discovery.ts), nulls aside. One type keeps its own Parquet type (SINGLE); Int32 with
 * Int64 is INT64, with Double DOUBLE (every Int32 is exactly a double); types that all render as
 * JSON strings make a string column. Anything else (documents, arrays, Timestamp, mixed kinds, a
 * field sampled only as null) is JSON text, which holds any value. So is a nested path (`doc.city`):
 * through an array of documents it comes out as an array, and the projection does not say whether
 * a parent is one. A later document with a type the sample did not see fails the job with a message
 * naming the field, rather than being changed.
 */
export function mongoColumnOf(column: ColumnInfo): ParquetColumnType {
  const sampled = mongoFieldType(column)?.bsonTypes ?? [];
  if (column.name.includes('.')) return JSON_TEXT;
  const types = new Set(sampled.filter((type) => type !== 'null'));
  if (types.size === 0) return JSON_TEXT;
  if (types.size === 1) {
    const [only] = types;
    return SINGLE[only] ?? (STRING_RENDERED.has(only) ? STRING : JSON_TEXT);
  }
  if (types.size === 2 && types.has('int')) {
    if (types.has('long')) return INT64;
    if (types.has('double')) return DOUBLE;
  }
  return [...types].every((type) => STRING_RENDERED.has(type)) ? STRING : JSON_TEXT;
}
