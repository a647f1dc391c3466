import { engineTypeReader } from '../shared/type-table.js';

/**
 * The BSON type of a value, named as MongoDB's `$type` aliases, plus `uuid` for binData of
 * subtype 4 (filters turn a UUID string into one of those).
 */
export type BsonTypeName =
  | 'double'
  | 'string'
  | 'object'
  | 'array'
  | 'binData'
  | 'uuid'
  | 'objectId'
  | 'bool'
  | 'date'
  | 'null'
  | 'regex'
  | 'javascript'
  | 'symbol'
  | 'int'
  | 'timestamp'
  | 'long'
  | 'decimal'
  | 'minKey'
  | 'maxKey';

/**
 * `ColumnInfo.engineType` for MongoDB: the BSON types seen at this path while sampling, in
 * first-seen order (for arrays, also the types of their scalar elements, since a query on the
 * path matches elements). Plain JSON on purpose: a schema snapshot may be cached outside the
 * process (Redis), so it must survive a JSON round trip.
 */
export interface MongoFieldType {
  readonly bsonTypes: readonly BsonTypeName[];
}

/** The connector's type info of a field, or null when the snapshot carries none we understand. */
export const mongoFieldType = engineTypeReader<MongoFieldType>({ bsonTypes: 'array' });

/** `_bsontype` tags of the bson package's classes (checked by tag, not instanceof: robust to copies). */
const BY_TAG: Readonly<Record<string, BsonTypeName>> = {
  ObjectId: 'objectId',
  Decimal128: 'decimal',
  Long: 'long',
  Int32: 'int',
  Double: 'double',
  Timestamp: 'timestamp',
  MinKey: 'minKey',
  MaxKey: 'maxKey',
  Code: 'javascript',
  BSONRegExp: 'regex',
  BSONSymbol: 'symbol',
  // A DBRef is a document ({$ref, $id}) that the bson package turns into a class.
  DBRef: 'object',
};

const bsonTag = (value: object): unknown => (value as { _bsontype?: unknown })._bsontype;

/** The BSON type of a value as the driver hands it over (promoteValues/promoteLongs off). */
export function bsonTypeOf(value: unknown): BsonTypeName {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return 'double';
    case 'bigint':
      return 'long';
    case 'object':
      break;
    default:
      return 'null';
  }
  if (value instanceof Date) return 'date';
  if (Array.isArray(value)) return 'array';
  const tag = bsonTag(value);
  if (tag === 'Binary') return (value as { sub_type?: unknown }).sub_type === 4 ? 'uuid' : 'binData';
  if (typeof tag === 'string') return BY_TAG[tag] ?? 'object';
  if (value instanceof RegExp) return 'regex';
  if (value instanceof Uint8Array) return 'binData';
  return 'object';
}

/** A sub-document: something whose keys are field names (not a BSON value class, array or Date). */
export function isSubDocument(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value) || value instanceof Date || value instanceof RegExp || value instanceof Uint8Array) return false;
  return bsonTag(value) === undefined;
}

/** Human-readable type of a field for the schema API, e.g. `string|null`. */
export function describeFieldType(types: readonly BsonTypeName[]): string {
  return types.length === 0 ? 'unknown' : types.join('|');
}
