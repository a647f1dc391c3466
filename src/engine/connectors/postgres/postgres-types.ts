import { engineTypeReader } from '../shared/type-table.js';

/** Built-in type OIDs the connector maps specially; every other type is rendered as its text. */
export const PgOid = {
  bool: 16,
  bytea: 17,
  char: 18,
  name: 19,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  json: 114,
  xml: 142,
  float4: 700,
  float8: 701,
  money: 790,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
  numeric: 1700,
  uuid: 2950,
  jsonb: 3802,
} as const;

/**
 * `ColumnInfo.engineType` for PostgreSQL. Plain JSON data on purpose: a schema snapshot may be
 * cached outside the process (Redis), so it must survive a JSON round-trip.
 */
export interface PostgresColumnType {
  /** Type OID with domains resolved to their base type. */
  readonly typeOid: number;
  /** For arrays: the element type OID, domains resolved; absent for scalars. */
  readonly elementOid?: number;
  /** Element delimiter of an array type (`,` for all but a few geometric types). */
  readonly elementDelimiter?: string;
  /** `pg_type.typcategory` of the base type (`S` string, `N` numeric, `A` array, …). */
  readonly category: string;
  /** A typmod-free type name to cast bound filter values to (`numeric`, `bpchar`, `integer[]`). */
  readonly castType: string;
}

/** The connector's type info of a column, or null when the snapshot carries none we understand. */
export const postgresColumnType = engineTypeReader<PostgresColumnType>({ typeOid: 'number', category: 'string', castType: 'string' });

/** money renders with a locale currency sign; we read it as numeric to keep the exact amount. */
export function isMoney(type: PostgresColumnType | null): boolean {
  return type !== null && (type.typeOid === PgOid.money || type.elementOid === PgOid.money);
}
