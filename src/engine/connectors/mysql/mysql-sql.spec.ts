import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo } from '../shared/engine-connector.js';
import { qualifiedName, quoteIdent } from './mysql-identifier.js';
import { buildSelect, renderSql } from './mysql-sql.js';
import { MySqlStatementBuilder } from './mysql-statement-builder.js';
import { expectMapsEach } from '../testing/mapping-checks.js';
import { mysqlColumn } from './testing/mysql-columns.js';

const col = mysqlColumn;

const ID = col('id', 'int', 'int(11)');
const SELECT = col('select', 'text');
const MIXED = col('CreatedAt', 'datetime', 'datetime(6)');
const RATIO = col('ratio', 'double');
const SINGLE = col('single', 'float');
const SHAPE = col('shape', 'point');
const ODD = col('q?`x', 'varchar', 'varchar(10)');

const table = (overrides: Partial<TableInfo> = {}): TableInfo => ({
  schema: 'shop',
  name: 'Order `Lines`',
  key: 'Order `Lines`',
  columns: [ID, SELECT, MIXED, RATIO, SINGLE, SHAPE, ODD],
  primaryKey: [],
  ...overrides,
});

const FROM = '`shop`.`Order ``Lines```';

describe('MySQL identifier quoting', () => {
  it('always backtick-quotes and doubles embedded backticks', () => {
    expectMapsEach(quoteIdent, {
      users: '`users`',
      CreatedAt: '`CreatedAt`',
      select: '`select`',
      'a`b': '`a``b`',
      '`; DROP TABLE x; --': '```; DROP TABLE x; --`',
      'a.b "c"': '`a.b "c"`',
    });
  });

  it('qualifies a table with its database', () => {
    expect(qualifiedName({ schema: 'shop', name: 'users' })).toBe('`shop`.`users`');
    expect(qualifiedName({ schema: null, name: 'x`y' })).toBe('`x``y`');
  });
});

describe('SELECT building', () => {
  it('projects quoted columns in request order without ORDER BY when there is no primary key', () => {
    expect(buildSelect({ table: table(), columns: [MIXED, SELECT, ID] })).toEqual({
      text: 'SELECT `CreatedAt`, `select`, `id` FROM ' + FROM,
      values: [],
      fragments: ['SELECT `CreatedAt`, `select`, `id` FROM ' + FROM],
    });
  });

  it('orders by the primary key columns in key order, qualified so no select alias can shadow them', () => {
    const sql = buildSelect({ table: table({ primaryKey: ['select', 'id'] }), columns: [ID] });
    expect(sql.text).toBe(`SELECT \`id\` FROM ${FROM} ORDER BY ${FROM}.\`select\`, ${FROM}.\`id\``);
  });

  it('reads DOUBLE and FLOAT as text and spatial values as WKT, under their own names', () => {
    const sql = buildSelect({ table: table(), columns: [RATIO, SINGLE, SHAPE] });
    expect(sql.text).toBe(
      'SELECT CAST(`ratio` AS CHAR) AS `ratio`, CAST(`single` + 0e0 AS CHAR) AS `single`, ST_AsText(`shape`) AS `shape` FROM ' + FROM,
    );
  });

  it('adds the WHERE clause with bound values before ORDER BY', () => {
    const sql = buildSelect({
      table: table({ primaryKey: ['id'] }),
      columns: [ID],
      filters: { CreatedAt: { gte: ['2024-01-01'] }, select: { eq: ["x' OR 1=1"] } },
    });
    expect(sql.text).toBe(
      `SELECT \`id\` FROM ${FROM} WHERE \`CreatedAt\` >= CAST(? AS DATETIME(6)) AND \`select\` = ? ORDER BY ${FROM}.\`id\``,
    );
    expect(sql.values).toEqual(['2024-01-01', "x' OR 1=1"]);
  });

  it('omits WHERE when the filters are empty', () => {
    expect(buildSelect({ table: table(), columns: [ID], filters: { id: {} } }).text).toBe('SELECT `id` FROM ' + FROM);
  });

  it('selects a constant for an empty projection (MySQL has no empty select list)', () => {
    expect(buildSelect({ table: table(), columns: [] }).text).toBe('SELECT 1 FROM ' + FROM);
  });

  it('falls back to plain projection for a column without engine type', () => {
    const bare: ColumnInfo = { name: 'x', dataType: 'double' };
    expect(buildSelect({ table: table({ columns: [bare] }), columns: [bare] }).text).toBe('SELECT `x` FROM ' + FROM);
  });
});

describe('rendering the statement sent to the server', () => {
  it('splices escaped values at the placeholders only, never at a ? inside an identifier', () => {
    const statement = buildSelect({ table: table(), columns: [ODD], filters: { 'q?`x': { eq: ["it's ?"] }, id: { gt: [5] } } });
    expect(statement.text).toBe('SELECT `q?``x` FROM ' + FROM + ' WHERE `q?``x` = ? AND `id` > CAST(? AS DECIMAL(65,30))');
    expect(renderSql(statement)).toBe('SELECT `q?``x` FROM ' + FROM + " WHERE `q?``x` = 'it\\'s ?' AND `id` > CAST(5 AS DECIMAL(65,30))");
  });

  it('escapes quotes, backslashes and control characters, and writes null, booleans and numbers as literals', () => {
    const statement = new MySqlStatementBuilder()
      .append('SELECT ')
      .bind("a'b\\c\n\u0000")
      .append(', ')
      .bind(null)
      .append(', ')
      .bind(true)
      .append(', ')
      .bind(-1.5)
      .build();
    expect(statement.fragments).toEqual(['SELECT ', ', ', ', ', ', ', '']);
    expect(renderSql(statement)).toBe("SELECT 'a\\'b\\\\c\\n\\0', NULL, true, -1.5");
  });
});
