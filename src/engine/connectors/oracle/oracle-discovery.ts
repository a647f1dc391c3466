import type { ColumnInfo, SchemaSnapshot, TableInfo } from '../shared/engine-connector.js';
import { OracleStatementBuilder, type SqlStatement } from './oracle-statement-builder.js';
import { describeColumnType, displayType } from './oracle-types.js';

/**
 * Oracle's system owners, as the original service listed them (docs/compatibility.md#discovery), never discovered even when asked
 * for. Owners the database itself maintains (ALL_USERS.ORACLE_MAINTAINED = 'Y', 12c+; thin mode
 * needs 12.1 or later anyway) are excluded too: the list predates most of them (AUDSYS, LBACSYS,
 * GSMADMIN…).
 */
export const SYSTEM_OWNERS: readonly string[] = [
  'SYS',
  'SYSTEM',
  'OUTLN',
  'XDB',
  'MDSYS',
  'CTXSYS',
  'DBSNMP',
  'WMSYS',
  'EXFSYS',
  'ORDSYS',
  'ORDDATA',
  'ORDPLUGINS',
  'SI_INFORMTN_SCHEMA',
  'APEX_PUBLIC_USER',
  'APEX_040000',
  'APEX_030200',
  'FLOWS_FILES',
  'ANONYMOUS',
];

/**
 * A catalog query (`select`, ending in its WHERE clause) limited to the objects of `owners` (null:
 * every readable owner) that can be extracted; `alias` names the view that holds OWNER and
 * TABLE_NAME. The ALL_* views list only objects the login has a privilege on, i.e. what can be
 * extracted. Names with `$` (recycle bin `BIN$…`, AQ$/MVIEW$ internals) are system objects.
 */
function catalogStatement(select: string, alias: string, orderBy: string, owners: readonly string[] | null): SqlStatement {
  const sql = new OracleStatementBuilder().append(select);
  const owner = `${alias}.OWNER`;
  if (owners !== null) sql.append(` AND ${owner} IN (${owners.map((o) => sql.placeholder(o)).join(', ')})`);
  sql.append(
    ` AND ${owner} NOT IN (${SYSTEM_OWNERS.map((o) => `'${o}'`).join(', ')})` +
      ` AND ${owner} NOT IN (SELECT u.USERNAME FROM ALL_USERS u WHERE u.ORACLE_MAINTAINED = 'Y')` +
      ` AND INSTR(${owner}, '$') = 0 AND INSTR(${alias}.TABLE_NAME, '$') = 0` +
      ` ORDER BY ${orderBy}`,
  );
  return sql.build();
}

/**
 * Columns of every table (heap, partitioned, index-organized, temporary, external; not
 * nested-table storage, IOT overflow or secondary objects) and view of `owners`, in COLUMN_ID order.
 */
export function columnsStatement(owners: readonly string[] | null): SqlStatement {
  return catalogStatement(
    'SELECT c.OWNER, c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE, c.DATA_PRECISION, c.DATA_SCALE, c.CHAR_LENGTH, c.DATA_LENGTH, c.DATA_TYPE_OWNER' +
      ' FROM ALL_TAB_COLUMNS c JOIN (' +
      "SELECT OWNER, TABLE_NAME FROM ALL_TABLES WHERE NESTED = 'NO' AND SECONDARY = 'N' AND (IOT_TYPE IS NULL OR IOT_TYPE = 'IOT')" +
      ' UNION ALL SELECT OWNER, VIEW_NAME FROM ALL_VIEWS' +
      ') o ON o.OWNER = c.OWNER AND o.TABLE_NAME = c.TABLE_NAME WHERE 1 = 1',
    'c',
    'c.OWNER, c.TABLE_NAME, c.COLUMN_ID',
    owners,
  );
}

/** Primary-key columns (constraint type P) of the tables of `owners`, in key POSITION order. */
export function primaryKeysStatement(owners: readonly string[] | null): SqlStatement {
  return catalogStatement(
    'SELECT cc.OWNER, cc.TABLE_NAME, cc.COLUMN_NAME FROM ALL_CONSTRAINTS k' +
      ' JOIN ALL_CONS_COLUMNS cc ON cc.OWNER = k.OWNER AND cc.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND cc.TABLE_NAME = k.TABLE_NAME' +
      " WHERE k.CONSTRAINT_TYPE = 'P'",
    'k',
    'cc.OWNER, cc.TABLE_NAME, cc.POSITION',
    owners,
  );
}

/** Owners to discover: upper-cased (Oracle folds unquoted names to upper case), distinct. */
export function discoveryOwners(schemas: readonly string[] | null, defaultSchema: string): string[] | null {
  if (schemas === null) return null;
  const owners = schemas.length === 0 ? [defaultSchema] : schemas.map((s) => s.toUpperCase());
  return [...new Set(owners)];
}

/** Result key rule (docs/api.md, "Tables and result keys"): the login's own tables bare (`ACCOUNTS`), others `OWNER.TABLE`. */
export function tableKey(owner: string, name: string, defaultSchema: string): string {
  return owner === defaultSchema ? name : `${owner}.${name}`;
}

/** A catalog row as the driver returns it (arrays; NUMBER columns as digit strings). */
export type CatalogRow = readonly unknown[];

const text = (value: unknown): string => (typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value));

function numberOrNull(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

interface TableBuilder {
  readonly owner: string;
  readonly name: string;
  readonly columns: ColumnInfo[];
  readonly primaryKey: string[];
}

const tableId = (owner: string, name: string): string => `${owner}\u0000${name}`;

/** Groups the ordered catalog rows into tables keyed by result key. */
export function toSnapshot(columnRows: readonly CatalogRow[], keyRows: readonly CatalogRow[], defaultSchema: string): SchemaSnapshot {
  const builders = new Map<string, TableBuilder>();
  for (const [owner, tableName, columnName, dataType, precision, scale, charLength, dataLength, typeOwner] of columnRows) {
    const id = tableId(text(owner), text(tableName));
    let table = builders.get(id);
    if (table === undefined) {
      table = { owner: text(owner), name: text(tableName), columns: [], primaryKey: [] };
      builders.set(id, table);
    }
    const facts = {
      dataType: text(dataType),
      precision: numberOrNull(precision),
      scale: numberOrNull(scale),
      charLength: numberOrNull(charLength) || null,
      typeOwner: typeOwner === null || typeOwner === undefined ? null : text(typeOwner),
    };
    table.columns.push({
      name: text(columnName),
      dataType: displayType({ ...facts, dataLength: numberOrNull(dataLength) }),
      engineType: describeColumnType(facts),
    });
  }
  for (const [owner, tableName, columnName] of keyRows)
    builders.get(tableId(text(owner), text(tableName)))?.primaryKey.push(text(columnName));

  const tables = new Map<string, TableInfo>();
  for (const t of builders.values()) {
    const key = tableKey(t.owner, t.name, defaultSchema);
    tables.set(key, { schema: t.owner, name: t.name, key, columns: t.columns, primaryKey: t.primaryKey });
  }
  return { tables };
}
