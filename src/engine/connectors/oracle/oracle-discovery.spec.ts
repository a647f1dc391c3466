import { describe, expect, it } from 'vitest';
import {
  type CatalogRow,
  columnsStatement,
  discoveryOwners,
  primaryKeysStatement,
  SYSTEM_OWNERS,
  tableKey,
  toSnapshot,
} from './oracle-discovery.js';
import { describeColumnType, displayType, type OracleValueKind } from './oracle-types.js';

// Rows as columnsStatement returns them through node-oracledb (arrays; NUMBER catalog columns as JS numbers):
// OWNER, TABLE_NAME, COLUMN_NAME, DATA_TYPE, DATA_PRECISION, DATA_SCALE, CHAR_LENGTH, DATA_LENGTH, DATA_TYPE_OWNER.
const COLUMN_ROWS: CatalogRow[] = [
  ['FETCHER', 'ACCOUNTS', 'ID', 'NUMBER', 19, 0, 0, 22, null],
  ['FETCHER', 'ACCOUNTS', 'EMAIL', 'VARCHAR2', null, null, 120, 480, null],
  ['FETCHER', 'ACCOUNTS', 'BALANCE', 'NUMBER', 12, 2, 0, 22, null],
  ['FETCHER', 'ACCOUNTS', 'CREATED_AT', 'TIMESTAMP(6) WITH TIME ZONE', null, 6, 0, 13, null],
  ['FETCHER', 'Order Lines', 'LINE', 'NUMBER', null, 0, 0, 22, null],
  ['FETCHER', 'Order Lines', 'ORDER', 'NUMBER', 10, 0, 0, 22, null],
  ['FETCHER', 'Order Lines', 'SHAPE', 'SDO_GEOMETRY', null, null, 0, 1, 'MDSYS'],
  ['HR', 'ACCOUNTS', 'ID', 'NUMBER', 10, 0, 0, 22, null],
  ['HR', 'ACCOUNTS', 'PAYLOAD', 'RAW', null, null, 0, 16, null],
];
const KEY_ROWS: CatalogRow[] = [
  ['FETCHER', 'ACCOUNTS', 'ID'],
  ['FETCHER', 'Order Lines', 'ORDER'],
  ['FETCHER', 'Order Lines', 'LINE'],
  ['HR', 'ACCOUNTS', 'ID'],
  ['HR', 'GONE', 'ID'],
];

describe('Oracle discovery statements', () => {
  it('reads tables and views of the named owners, in COLUMN_ID order, with the type facts', () => {
    const { text, binds } = columnsStatement(['FETCHER', 'HR']);
    expect(binds).toEqual(['FETCHER', 'HR']);
    expect(text).toMatch(
      /^SELECT c\.OWNER, c\.TABLE_NAME, c\.COLUMN_NAME, c\.DATA_TYPE, c\.DATA_PRECISION, c\.DATA_SCALE, c\.CHAR_LENGTH, c\.DATA_LENGTH, c\.DATA_TYPE_OWNER FROM ALL_TAB_COLUMNS c JOIN \(/,
    );
    expect(text).toContain(
      "SELECT OWNER, TABLE_NAME FROM ALL_TABLES WHERE NESTED = 'NO' AND SECONDARY = 'N' AND (IOT_TYPE IS NULL OR IOT_TYPE = 'IOT') UNION ALL SELECT OWNER, VIEW_NAME FROM ALL_VIEWS",
    );
    expect(text).toContain(' AND c.OWNER IN (:1, :2)');
    expect(text.endsWith(' ORDER BY c.OWNER, c.TABLE_NAME, c.COLUMN_ID')).toBe(true);
  });

  it('always excludes system owners (even when asked for), Oracle-maintained owners and $ names', () => {
    for (const { text } of [columnsStatement(['SYS']), columnsStatement(null), primaryKeysStatement(null)]) {
      const column = text.includes('k.OWNER') ? 'k' : 'c';
      expect(text).toContain(` AND ${column}.OWNER NOT IN (${SYSTEM_OWNERS.map((o) => `'${o}'`).join(', ')})`);
      expect(text).toContain(` AND ${column}.OWNER NOT IN (SELECT u.USERNAME FROM ALL_USERS u WHERE u.ORACLE_MAINTAINED = 'Y')`);
      expect(text).toContain(` AND INSTR(${column}.OWNER, '$') = 0 AND INSTR(${column}.TABLE_NAME, '$') = 0`);
    }
    expect(SYSTEM_OWNERS).toEqual(expect.arrayContaining(['SYS', 'SYSTEM', 'XDB', 'MDSYS', 'ANONYMOUS', 'APEX_040000']));
    expect(columnsStatement(null).binds).toEqual([]);
    expect(columnsStatement(null).text).not.toContain(' IN (:');
  });

  it('reads primary-key columns in POSITION order', () => {
    const { text, binds } = primaryKeysStatement(['FETCHER']);
    expect(binds).toEqual(['FETCHER']);
    expect(text).toMatch(/^SELECT cc\.OWNER, cc\.TABLE_NAME, cc\.COLUMN_NAME FROM ALL_CONSTRAINTS k JOIN ALL_CONS_COLUMNS cc ON /);
    expect(text).toContain("WHERE k.CONSTRAINT_TYPE = 'P' AND k.OWNER IN (:1)");
    expect(text.endsWith(' ORDER BY cc.OWNER, cc.TABLE_NAME, cc.POSITION')).toBe(true);
  });

  it('upper-cases and de-duplicates the owners asked for; an empty list means the login schema', () => {
    expect(discoveryOwners(['hr', 'HR', 'Sales'], 'FETCHER')).toEqual(['HR', 'SALES']);
    expect(discoveryOwners([], 'FETCHER')).toEqual(['FETCHER']);
    expect(discoveryOwners(null, 'FETCHER')).toBeNull();
  });
});

describe('Oracle discovery snapshot', () => {
  const snapshot = toSnapshot(COLUMN_ROWS, KEY_ROWS, 'FETCHER');

  it('keys the login’s own tables bare and other owners’ as OWNER.TABLE', () => {
    expect([...snapshot.tables.keys()]).toEqual(['ACCOUNTS', 'Order Lines', 'HR.ACCOUNTS']);
    expect(snapshot.tables.get('ACCOUNTS')).toMatchObject({ schema: 'FETCHER', name: 'ACCOUNTS', key: 'ACCOUNTS' });
    expect(snapshot.tables.get('HR.ACCOUNTS')).toMatchObject({ schema: 'HR', name: 'ACCOUNTS', key: 'HR.ACCOUNTS' });
    expect(tableKey('FETCHER', 'T', 'FETCHER')).toBe('T');
    expect(tableKey('HR', 'T', 'FETCHER')).toBe('HR.T');
  });

  it('keeps columns in catalog order and the primary key in key order', () => {
    const lines = snapshot.tables.get('Order Lines')!;
    expect(lines.columns.map((c) => c.name)).toEqual(['LINE', 'ORDER', 'SHAPE']);
    expect(lines.primaryKey).toEqual(['ORDER', 'LINE']);
    expect(snapshot.tables.get('HR.ACCOUNTS')!.primaryKey).toEqual(['ID']);
  });

  it('carries readable type names and the facts the value mapping needs, as plain JSON data', () => {
    const accounts = snapshot.tables.get('ACCOUNTS')!;
    expect(accounts.columns.map((c) => c.dataType)).toEqual(['NUMBER(19)', 'VARCHAR2(120)', 'NUMBER(12,2)', 'TIMESTAMP(6) WITH TIME ZONE']);
    expect(accounts.columns[2].engineType).toEqual({
      dataType: 'NUMBER',
      precision: 12,
      scale: 2,
      charLength: null,
      kind: 'decimal',
      national: false,
    });
    expect(accounts.columns[3].engineType).toEqual({
      dataType: 'TIMESTAMP(6) WITH TIME ZONE',
      precision: null,
      scale: 6,
      charLength: null,
      kind: 'timestamp_tz',
      national: false,
      fractionDigits: 6,
    });
    expect(snapshot.tables.get('Order Lines')!.columns.map((c) => c.dataType)).toEqual(['INTEGER', 'NUMBER(10)', 'MDSYS.SDO_GEOMETRY']);
    expect(snapshot.tables.get('HR.ACCOUNTS')!.columns[1].dataType).toBe('RAW(16)');
    expect(JSON.parse(JSON.stringify(accounts.columns))).toEqual(accounts.columns);
  });
});

describe('Oracle column kinds', () => {
  const kind = (
    dataType: string,
    precision: number | null = null,
    scale: number | null = null,
    typeOwner: string | null = null,
  ): OracleValueKind => describeColumnType({ dataType, precision, scale, charLength: null, typeOwner }).kind;

  it.each<[string, number | null, number | null, string | null, OracleValueKind]>([
    ['NUMBER', 10, 0, null, 'integer'],
    ['NUMBER', null, 0, null, 'integer'],
    ['NUMBER', 5, -2, null, 'integer'],
    ['NUMBER', 12, 2, null, 'decimal'],
    ['NUMBER', null, null, null, 'decimal'],
    ['FLOAT', 126, null, null, 'decimal'],
    ['BINARY_FLOAT', null, null, null, 'binary_float'],
    ['BINARY_DOUBLE', null, null, null, 'binary_double'],
    ['DATE', null, null, null, 'date'],
    ['TIMESTAMP(3)', null, 3, null, 'timestamp'],
    ['TIMESTAMP(6) WITH TIME ZONE', null, 6, null, 'timestamp_tz'],
    ['TIMESTAMP(6) WITH LOCAL TIME ZONE', null, 6, null, 'timestamp_ltz'],
    ['INTERVAL YEAR(2) TO MONTH', null, null, null, 'interval_ym'],
    ['INTERVAL DAY(2) TO SECOND(6)', null, 6, null, 'interval_ds'],
    ['VARCHAR2', null, null, null, 'text'],
    ['NVARCHAR2', null, null, null, 'text'],
    ['CHAR', null, null, null, 'char'],
    ['NCHAR', null, null, null, 'char'],
    ['LONG', null, null, null, 'long'],
    ['CLOB', null, null, null, 'clob'],
    ['NCLOB', null, null, null, 'clob'],
    ['RAW', null, null, null, 'binary'],
    ['LONG RAW', null, null, null, 'long_raw'],
    ['BLOB', null, null, null, 'blob'],
    ['BOOLEAN', null, null, null, 'boolean'],
    ['JSON', null, null, null, 'json'],
    ['VECTOR', null, null, null, 'vector'],
    ['ROWID', null, null, null, 'rowid'],
    ['UROWID', null, null, null, 'rowid'],
    ['XMLTYPE', null, null, 'SYS', 'xml'],
    ['BFILE', null, null, null, 'bfile'],
    ['SDO_GEOMETRY', null, null, 'MDSYS', 'other'],
    // A user type named like a built-in is not the built-in.
    ['JSON', null, null, 'APP', 'other'],
  ])('%s(%s,%s) owner %s → %s', (dataType, precision, scale, owner, expected) => {
    expect(kind(dataType, precision, scale, owner)).toBe(expected);
  });

  it('takes the fractional precision from the type name, else the scale, else 6', () => {
    const digits = (dataType: string, scale: number | null) =>
      describeColumnType({ dataType, precision: null, scale, charLength: null }).fractionDigits;
    expect(digits('TIMESTAMP(3)', null)).toBe(3);
    expect(digits('TIMESTAMP(9) WITH TIME ZONE', 0)).toBe(9);
    expect(digits('TIMESTAMP', 2)).toBe(2);
    expect(digits('TIMESTAMP', null)).toBe(6);
  });

  it('marks the national character set forms', () => {
    expect(describeColumnType({ dataType: 'NCHAR', precision: null, scale: null, charLength: 3 }).national).toBe(true);
    expect(describeColumnType({ dataType: 'NCLOB', precision: null, scale: null, charLength: null }).national).toBe(true);
    expect(describeColumnType({ dataType: 'CHAR', precision: null, scale: null, charLength: 3 }).national).toBe(false);
  });

  it('names types for people', () => {
    expect(displayType({ dataType: 'NUMBER', precision: null, scale: null, charLength: null })).toBe('NUMBER');
    expect(displayType({ dataType: 'FLOAT', precision: 126, scale: null, charLength: null })).toBe('FLOAT(126)');
    expect(displayType({ dataType: 'CHAR', precision: null, scale: null, charLength: 5 })).toBe('CHAR(5)');
    expect(displayType({ dataType: 'XMLTYPE', precision: null, scale: null, charLength: null, typeOwner: 'SYS' })).toBe('XMLTYPE');
  });
});
