import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo } from '../shared/engine-connector.js';
import { qualifiedName, quoteIdent } from './oracle-identifier.js';
import { buildSelect, UnsupportedColumnError } from './oracle-sql.js';
import { OracleStatementBuilder } from './oracle-statement-builder.js';
import { expectMapsEach } from '../testing/mapping-checks.js';
import { oracleColumn } from './testing/oracle-columns.js';

const col = oracleColumn;

const ID = col('ID', 'NUMBER', 10, 0);
const NAME = col('NAME', 'VARCHAR2');
const MIXED = col('CreatedAt', 'VARCHAR2');
const SELECT = col('SELECT', 'VARCHAR2');
const DAY = col('DAY', 'DATE');
const AT = col('AT', 'TIMESTAMP(3)', null, 3);
const AT0 = col('AT0', 'TIMESTAMP(0)', null, 0);
const AT_TZ = col('AT_TZ', 'TIMESTAMP(9) WITH TIME ZONE', null, 9);
const AT_LTZ = col('AT_LTZ', 'TIMESTAMP(6) WITH LOCAL TIME ZONE', null, 6);
const DOC = col('DOC', 'JSON');
const FILE = col('FILE', 'BFILE');

const table = (overrides: Partial<TableInfo> = {}): TableInfo => ({
  schema: 'FETCHER',
  name: 'Order Lines',
  key: 'Order Lines',
  columns: [ID, NAME, MIXED, SELECT, DAY, AT, AT0, AT_TZ, AT_LTZ, DOC, FILE],
  primaryKey: [],
  ...overrides,
});

const FROM = '"FETCHER"."Order Lines" t';

describe('Oracle identifier quoting', () => {
  it('always double-quotes, keeping case, spaces and reserved words', () => {
    expectMapsEach(quoteIdent, {
      ACCOUNTS: '"ACCOUNTS"',
      CreatedAt: '"CreatedAt"',
      SELECT: '"SELECT"',
      'a b.c': '"a b.c"',
    });
    // Oracle forbids " in names; doubled, an injected quote can only be a syntax error.
    expect(quoteIdent('x" FROM dual --')).toBe('"x"" FROM dual --"');
  });

  it('qualifies a table with its owner', () => {
    expect(qualifiedName({ schema: 'HR', name: 'EMPLOYEES' })).toBe('"HR"."EMPLOYEES"');
    expect(qualifiedName({ schema: null, name: 'T' })).toBe('"T"');
  });
});

describe('SELECT building', () => {
  it('projects quoted columns in request order, no ORDER BY without a primary key', () => {
    expect(buildSelect({ table: table(), columns: [MIXED, SELECT, ID] })).toEqual({
      text: `SELECT "CreatedAt", "SELECT", "ID" FROM ${FROM}`,
      binds: [],
    });
  });

  it('orders by the primary key in key order, through the table alias (not a select alias)', () => {
    const sql = buildSelect({ table: table({ primaryKey: ['DAY', 'ID'] }), columns: [DAY] });
    expect(sql.text).toBe(`SELECT TO_CHAR("DAY", 'SYYYY-MM-DD"T"HH24:MI:SS') AS "DAY" FROM ${FROM} ORDER BY t."DAY", t."ID"`);
  });

  it('renders dates and timestamps on the server at the column precision, with the offset where stored', () => {
    const sql = buildSelect({ table: table(), columns: [AT, AT0, AT_TZ, AT_LTZ] });
    expect(sql.text).toBe(
      'SELECT ' +
        `TO_CHAR("AT", 'SYYYY-MM-DD"T"HH24:MI:SS.FF3') AS "AT", ` +
        `TO_CHAR("AT0", 'SYYYY-MM-DD"T"HH24:MI:SS') AS "AT0", ` +
        `TO_CHAR("AT_TZ", 'SYYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM') AS "AT_TZ", ` +
        `TO_CHAR("AT_LTZ", 'SYYYY-MM-DD"T"HH24:MI:SS.FF6') AS "AT_LTZ" FROM ${FROM}`,
    );
  });

  it('reads JSON as serialized text so numbers keep their digits', () => {
    expect(buildSelect({ table: table(), columns: [DOC] }).text).toBe(`SELECT JSON_SERIALIZE("DOC" RETURNING CLOB) AS "DOC" FROM ${FROM}`);
  });

  it('adds the WHERE clause with :n binds before ORDER BY', () => {
    const sql = buildSelect({
      table: table({ primaryKey: ['ID'] }),
      columns: [ID],
      filters: { DAY: { gte: ['2026-01-01'] }, SELECT: { eq: ["x' OR 1=1"] } },
    });
    expect(sql.text).toBe(`SELECT "ID" FROM ${FROM} WHERE "DAY" >= TO_DATE(:1, 'YYYY-MM-DD HH24:MI:SS') AND "SELECT" = :2 ORDER BY t."ID"`);
    expect(sql.binds).toEqual(['2026-01-01 00:00:00', "x' OR 1=1"]);
  });

  it('omits WHERE when the filters are empty', () => {
    expect(buildSelect({ table: table(), columns: [ID], filters: { ID: {} } }).text).toBe(`SELECT "ID" FROM ${FROM}`);
  });

  it('selects a constant for an empty projection (Oracle has no empty select list)', () => {
    expect(buildSelect({ table: table(), columns: [] }).text).toBe(`SELECT 1 FROM ${FROM}`);
  });

  it('refuses a BFILE column before anything is sent', () => {
    expect(() => buildSelect({ table: table(), columns: [ID, FILE] })).toThrow(UnsupportedColumnError);
    expect(() => buildSelect({ table: table(), columns: [FILE] })).toThrow(/column "FILE" has type BFILE/);
  });

  it('falls back to plain projection for a column without engine type', () => {
    const bare: ColumnInfo = { name: 'X', dataType: 'DATE' };
    expect(buildSelect({ table: table({ columns: [bare] }), columns: [bare] }).text).toBe(`SELECT "X" FROM ${FROM}`);
  });

  it('numbers placeholders in order and returns copies', () => {
    const builder = new OracleStatementBuilder().append('a ').bind(1).append(' b ').bind({ charType: 'char', value: 'x' });
    expect(builder.placeholder(null)).toBe(':3');
    const built = builder.build();
    expect(built).toEqual({ text: 'a :1 b :2', binds: [1, { charType: 'char', value: 'x' }, null] });
  });
});
