import type { ColumnInfo, SchemaSnapshot, TableInfo } from '../shared/engine-connector.js';
import type { PostgresColumnType } from './postgres-types.js';

/**
 * One catalog query for relations, columns, resolved types and primary keys of the named schemas
 * (`$1`), or of every schema when `$1` is NULL.
 *
 * - Relations: tables, partitioned tables, views, materialized views, foreign tables; system
 *   schemas are excluded even when asked for.
 * - Only what the login can read is listed (schema USAGE, column SELECT), like the original's (docs/compatibility.md#discovery)
 *   information_schema discovery: the schema answers "what can be extracted".
 * - Domains are resolved to their base type (also through domain chains and for array elements),
 *   so values of a domain column map like its base type.
 * - `cast_type` is typmod-free (a cast to `numeric(38,10)` or `character` would round or cut a
 *   filter value); `bpchar`/`varbit` because their bare SQL names mean length 1.
 *
 * Every value arrives as text (the session's identity type parsers).
 */
export const DISCOVERY_SQL = `
WITH RECURSIVE domain_chain(oid, base) AS (
  SELECT t.oid, t.typbasetype FROM pg_catalog.pg_type t WHERE t.typtype = 'd'
  UNION ALL
  SELECT c.oid, t.typbasetype
  FROM domain_chain c JOIN pg_catalog.pg_type t ON t.oid = c.base
  WHERE t.typtype = 'd'
),
domain_base AS (
  SELECT c.oid, c.base
  FROM domain_chain c JOIN pg_catalog.pg_type t ON t.oid = c.base
  WHERE t.typtype <> 'd'
),
cols AS (
  SELECT n.nspname, c.relname, a.attnum, a.attname,
         pg_catalog.format_type(a.atttypid, a.atttypmod) AS data_type,
         COALESCE(db.base, a.atttypid) AS base_oid,
         pk.indkey
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN domain_base db ON db.oid = a.atttypid
  LEFT JOIN pg_catalog.pg_index pk ON pk.indrelid = c.oid AND pk.indisprimary
  WHERE ($1::text[] IS NULL OR n.nspname = ANY($1::text[]))
    AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
    AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
    AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')
    AND pg_catalog.has_column_privilege(c.oid, a.attnum, 'SELECT')
)
SELECT cols.nspname, cols.relname, cols.attname, cols.data_type,
       cols.base_oid, bt.typcategory,
       CASE WHEN bt.typcategory = 'A' AND bt.typelem <> 0 THEN COALESCE(edb.base, bt.typelem) END AS element_oid,
       et.typdelim AS element_delimiter,
       CASE
         WHEN cols.base_oid = 1042 THEN 'bpchar'
         WHEN cols.base_oid = 1560 THEN 'varbit'
         WHEN bt.typcategory = 'A' AND COALESCE(edb.base, bt.typelem) = 1042 THEN 'bpchar[]'
         WHEN bt.typcategory = 'A' AND COALESCE(edb.base, bt.typelem) = 1560 THEN 'varbit[]'
         ELSE pg_catalog.format_type(cols.base_oid, NULL)
       END AS cast_type,
       pg_catalog.array_position(cols.indkey::int2[], cols.attnum) AS pk_position
FROM cols
JOIN pg_catalog.pg_type bt ON bt.oid = cols.base_oid
LEFT JOIN domain_base edb ON edb.oid = bt.typelem
LEFT JOIN pg_catalog.pg_type et ON et.oid = bt.typelem AND bt.typcategory = 'A'
ORDER BY cols.nspname, cols.relname, cols.attnum`;

/** A row of DISCOVERY_SQL, in column order, every field as server text. */
export type DiscoveryRow = readonly (string | null)[];

interface TableBuilder {
  readonly schema: string;
  readonly name: string;
  readonly columns: ColumnInfo[];
  readonly pk: { readonly name: string; readonly position: number }[];
}

/** Result key rule (docs/api.md, "Tables and result keys"): bare name in the default schema, `schema.table` elsewhere. */
export function tableKey(schema: string, name: string, defaultSchema: string): string {
  return schema === defaultSchema ? name : `${schema}.${name}`;
}

function columnType(row: DiscoveryRow): PostgresColumnType {
  const [, , , , baseOid, category, elementOid, delimiter, castType] = row;
  return {
    typeOid: Number(baseOid),
    ...(elementOid === null ? {} : { elementOid: Number(elementOid), elementDelimiter: delimiter ?? ',' }),
    category: category ?? 'X',
    castType: castType ?? 'text',
  };
}

/**
 * Groups catalog rows into tables keyed by result key as they arrive, so the rows themselves are
 * never held: only what the snapshot keeps.
 */
export class PostgresSnapshotBuilder {
  private readonly builders = new Map<string, TableBuilder>();
  /**
   * One type description per distinct type: a catalog has thousands of columns and a few dozen
   * types, so columns share them (a column then costs its name and one small object).
   */
  private readonly types = new Map<string, { readonly dataType: string; readonly engineType: PostgresColumnType }>();

  constructor(private readonly defaultSchema: string) {}

  private typeOf(row: DiscoveryRow): { readonly dataType: string; readonly engineType: PostgresColumnType } {
    const key = `${row[3]}\u0000${row[4]}\u0000${row[5]}\u0000${row[6]}\u0000${row[7]}\u0000${row[8]}`;
    let type = this.types.get(key);
    if (type === undefined) {
      type = { dataType: row[3] ?? '', engineType: columnType(row) };
      this.types.set(key, type);
    }
    return type;
  }

  add(row: DiscoveryRow): void {
    const schema = row[0] ?? '';
    const name = row[1] ?? '';
    const key = tableKey(schema, name, this.defaultSchema);
    let table = this.builders.get(key);
    if (table === undefined) {
      table = { schema, name, columns: [], pk: [] };
      this.builders.set(key, table);
    }
    const column = row[2] ?? '';
    const { dataType, engineType } = this.typeOf(row);
    table.columns.push({ name: column, dataType, engineType });
    if (row[9] !== null) table.pk.push({ name: column, position: Number(row[9]) });
  }

  snapshot(): SchemaSnapshot {
    const tables = new Map<string, TableInfo>();
    for (const [key, t] of this.builders) {
      const primaryKey = t.pk.sort((a, b) => a.position - b.position).map((c) => c.name);
      tables.set(key, { schema: t.schema, name: t.name, key, columns: t.columns, primaryKey });
    }
    return { tables };
  }
}

/** Groups the ordered catalog rows into tables keyed by result key. */
export function toSnapshot(rows: readonly DiscoveryRow[], defaultSchema: string): SchemaSnapshot {
  const builder = new PostgresSnapshotBuilder(defaultSchema);
  for (const row of rows) builder.add(row);
  return builder.snapshot();
}
