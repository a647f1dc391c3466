import type { ColumnInfo, SchemaSnapshot, TableInfo } from '../shared/engine-connector.js';
import type { SqlParam } from './sqlserver-parameters.js';
import type { SqlStatement } from './sqlserver-sql.js';
import { describeColumnType, formatDataType } from './sqlserver-types.js';

/**
 * Schemas that are never data: the catalog views and the fixed database roles' schemas
 * (db_owner … db_denydatawriter). Whole schemas only: a user table called `dbo.db_users` is
 * discovered like any other (the original hid it: docs/compatibility.md#where-fetcher-differs-and-why).
 */
export const SYSTEM_SCHEMAS = [
  'sys',
  'INFORMATION_SCHEMA',
  'db_owner',
  'db_accessadmin',
  'db_securityadmin',
  'db_ddladmin',
  'db_backupoperator',
  'db_datareader',
  'db_datawriter',
  'db_denydatareader',
  'db_denydatawriter',
] as const;

const SYSTEM_SCHEMA_LIST = SYSTEM_SCHEMAS.map((s) => `N'${s}'`).join(', ');

/**
 * One catalog query for tables and views of the named schemas (`@p1…`), or of every schema when
 * `schemaCount` is null: columns in `column_id` order with their declared and base type, length,
 * precision and scale, and the column's position in the primary key.
 *
 * - Only objects the login may SELECT are listed (HAS_PERMS_BY_NAME): sys.objects also shows
 *   objects the login can merely see, and the snapshot answers "what can be extracted".
 * - Objects shipped with SQL Server (`is_ms_shipped`, e.g. master's spt_ tables) are left out.
 * - Alias types resolve to their system type (TYPE_NAME of system_type_id); CLR types
 *   (geography, geometry, hierarchyid, user assemblies) keep their own name.
 * - One parameter per schema rather than OPENJSON/STRING_SPLIT, which need compatibility
 *   level 130.
 */
export function discoveryStatement(schemas: readonly string[] | null): SqlStatement {
  const params: SqlParam[] = (schemas ?? []).map((schema, i) => ({ name: `p${i + 1}`, type: 'nvarchar', value: schema }));
  const scope = schemas === null ? '' : `\n  AND s.name IN (${params.map((p) => '@' + p.name).join(', ')})`;
  const text = `
SELECT s.name, o.name, c.name, c.column_id, t.name,
       CASE WHEN t.is_assembly_type = 1 THEN t.name ELSE TYPE_NAME(c.system_type_id) END,
       t.is_assembly_type, c.max_length, c.precision, c.scale, ic.key_ordinal
FROM sys.objects AS o
JOIN sys.schemas AS s ON s.schema_id = o.schema_id
JOIN sys.columns AS c ON c.object_id = o.object_id
JOIN sys.types AS t ON t.user_type_id = c.user_type_id
LEFT JOIN sys.indexes AS pk ON pk.object_id = o.object_id AND pk.is_primary_key = 1
LEFT JOIN sys.index_columns AS ic
  ON ic.object_id = pk.object_id AND ic.index_id = pk.index_id AND ic.column_id = c.column_id AND ic.key_ordinal > 0
WHERE o.type IN ('U', 'V')
  AND o.is_ms_shipped = 0
  AND s.name NOT IN (${SYSTEM_SCHEMA_LIST})${scope}
  AND HAS_PERMS_BY_NAME(QUOTENAME(s.name) + N'.' + QUOTENAME(o.name), N'OBJECT', N'SELECT') = 1
ORDER BY s.name, o.name, o.object_id, c.column_id`;
  return { text, params };
}

/** A row of the discovery statement, values as tedious returns them. */
export type DiscoveryRow = readonly unknown[];

const text = (value: unknown): string => (typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value));
const int = (value: unknown): number => (typeof value === 'number' ? value : Number(value ?? 0));

/** Result key rule (docs/api.md, "Tables and result keys"): bare name in the default schema, `schema.table` elsewhere. */
export function tableKey(schema: string, name: string, defaultSchema: string): string {
  return schema === defaultSchema ? name : `${schema}.${name}`;
}

interface TableBuilder {
  readonly schema: string;
  readonly name: string;
  readonly columns: ColumnInfo[];
  readonly pk: { readonly name: string; readonly position: number }[];
}

/**
 * Groups the ordered catalog rows into tables keyed by result key. Grouped by exact names: in a
 * case-insensitive database `Foo` and `foo` may both exist in a case-sensitive schema listing.
 */
export function toSnapshot(rows: readonly DiscoveryRow[], defaultSchema: string): SchemaSnapshot {
  const builders = new Map<string, TableBuilder>();
  for (const row of rows) {
    const [schemaName, tableName, columnName, , typeName, baseTypeName, isAssembly, maxLength, precision, scale, keyOrdinal] = row;
    const schema = text(schemaName);
    const name = text(tableName);
    const key = tableKey(schema, name, defaultSchema);
    let table = builders.get(key);
    if (table === undefined) {
      table = { schema, name, columns: [], pk: [] };
      builders.set(key, table);
    }
    const facts = {
      typeName: text(typeName),
      baseTypeName: text(baseTypeName ?? typeName),
      isAssemblyType: isAssembly === true || isAssembly === 1,
      maxLength: int(maxLength),
      precision: int(precision),
      scale: int(scale),
    };
    const column = text(columnName);
    table.columns.push({ name: column, dataType: formatDataType(facts), engineType: describeColumnType(facts) });
    if (keyOrdinal !== null && keyOrdinal !== undefined) table.pk.push({ name: column, position: int(keyOrdinal) });
  }
  const tables = new Map<string, TableInfo>();
  for (const [key, t] of builders) {
    const primaryKey = t.pk.sort((a, b) => a.position - b.position).map((c) => c.name);
    tables.set(key, { schema: t.schema, name: t.name, key, columns: t.columns, primaryKey });
  }
  return { tables };
}
