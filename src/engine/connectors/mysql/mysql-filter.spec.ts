import { describe, expect, it } from 'vitest';
import type { FilterCondition } from '../../request/data-request.js';
import { buildWhere, temporalValue } from './mysql-filter.js';
import { MySqlStatementBuilder } from './mysql-statement-builder.js';
import { mysqlColumn } from './testing/mysql-columns.js';
import { valuesStayOutOfSqlCheck } from '../testing/filter-checks.js';

const col = mysqlColumn;

const COLUMNS = [
  col('n', 'int', 'int(11)'),
  col('name', 'varchar', 'varchar(20)'),
  col('at', 'timestamp', 'timestamp(6)'),
  col('dt', 'datetime', 'datetime'),
  col('day', 'date'),
  col('t', 'time', 'time(6)'),
  col('amount', 'decimal', 'decimal(10,2)', 10, 2),
  col('huge', 'decimal', 'decimal(65,0)', 65, 0),
  col('ok', 'tinyint', 'tinyint(1)'),
  col('ratio', 'double'),
  col('Mixed`Col', 'bigint', 'bigint(20) unsigned'),
];

const where = (filters: Record<string, FilterCondition>) => {
  const sql = new MySqlStatementBuilder();
  buildWhere(filters, COLUMNS, sql);
  const { text, values } = sql.build();
  return { sql: text, values };
};

const DEC = 'CAST(? AS DECIMAL(65,30))';

describe('MySQL filter translation', () => {
  it.each<[string, Record<string, FilterCondition>, string, unknown[]]>([
    ['eq one value', { n: { eq: [5] } }, ` WHERE \`n\` = ${DEC}`, [5]],
    ['eq several values → IN', { n: { eq: [1, 2, 3] } }, ` WHERE \`n\` IN (${DEC}, ${DEC}, ${DEC})`, [1, 2, 3]],
    ['eq [null] → IS NULL', { n: { eq: [null] } }, ' WHERE `n` IS NULL', []],
    ['eq with null in the list → = … OR IS NULL', { n: { eq: [1, null] } }, ` WHERE (\`n\` = ${DEC} OR \`n\` IS NULL)`, [1]],
    ['ne one value', { n: { ne: [5] } }, ` WHERE \`n\` <> ${DEC}`, [5]],
    ['ne [null] → IS NOT NULL', { n: { ne: [null] } }, ' WHERE `n` IS NOT NULL', []],
    ['ne several → NOT IN', { n: { ne: [1, 2] } }, ` WHERE \`n\` NOT IN (${DEC}, ${DEC})`, [1, 2]],
    ['gt on TIMESTAMP casts to DATETIME(6)', { at: { gt: ['2024-01-01'] } }, ' WHERE `at` > CAST(? AS DATETIME(6))', ['2024-01-01']],
    ['gte', { n: { gte: [1] } }, ` WHERE \`n\` >= ${DEC}`, [1]],
    ['lt', { n: { lt: [1] } }, ` WHERE \`n\` < ${DEC}`, [1]],
    ['lte with a numeric string', { n: { lte: ['7'] } }, ` WHERE \`n\` <= ${DEC}`, ['7']],
    [
      'between, inclusive',
      { day: { between: ['2024-01-01', '2024-12-31'] } },
      ' WHERE `day` BETWEEN CAST(? AS DATE) AND CAST(? AS DATE)',
      ['2024-01-01', '2024-12-31'],
    ],
    ['in', { name: { in: ['a', 'b'] } }, ' WHERE `name` IN (?, ?)', ['a', 'b']],
    ['in, one value', { name: { in: ['a'] } }, ' WHERE `name` = ?', ['a']],
    ['in with null', { name: { in: ['a', 'b', null] } }, ' WHERE (`name` IN (?, ?) OR `name` IS NULL)', ['a', 'b']],
    ['in [null] only', { name: { in: [null] } }, ' WHERE `name` IS NULL', []],
    ['nin', { name: { nin: ['a', 'b'] } }, ' WHERE `name` NOT IN (?, ?)', ['a', 'b']],
    ['nin with null → <> … AND IS NOT NULL', { name: { nin: ['a', null] } }, ' WHERE (`name` <> ? AND `name` IS NOT NULL)', ['a']],
    ['like on text', { name: { like: ['ab%'] } }, ' WHERE `name` LIKE ?', ['ab%']],
    ['like on a non-text column: no cast, the pattern as text', { n: { like: [1] } }, ' WHERE `n` LIKE ?', ['1']],
    ['numbers and booleans against text are bound as text', { name: { eq: [5, true] } }, ' WHERE `name` IN (?, ?)', ['5', 'true']],
    ['TIME casts to TIME(6)', { t: { lt: ['10:00'] } }, ' WHERE `t` < CAST(? AS TIME(6))', ['10:00']],
    ['DECIMAL keeps the column scale out of the cast', { amount: { eq: ['1.501'] } }, ` WHERE \`amount\` = ${DEC}`, ['1.501']],
    [
      'a DECIMAL(65,0) column keeps all its integer digits',
      { huge: { gt: ['1e40'] } },
      ' WHERE `huge` > CAST(? AS DECIMAL(65,0))',
      ['1e40'],
    ],
    ['BOOLEAN reads PostgreSQL boolean texts', { ok: { eq: ['false', 'T'] } }, ` WHERE \`ok\` IN (${DEC}, ${DEC})`, [false, true]],
    ['DOUBLE compares natively', { ratio: { gt: [0.5] } }, ' WHERE `ratio` > ?', [0.5]],
    ['quoted column name', { 'Mixed`Col': { eq: ['18446744073709551615'] } }, ` WHERE \`Mixed\`\`Col\` = ${DEC}`, ['18446744073709551615']],
    ['null in a comparison is bound uncast and matches nothing', { at: { gt: [null] } }, ' WHERE `at` > ?', [null]],
    [
      'a zoned value for TIMESTAMP is converted to UTC',
      { at: { gte: ['2024-01-01T01:30:00.25+02:00'] } },
      ' WHERE `at` >= CAST(? AS DATETIME(6))',
      ['2023-12-31 23:30:00.25'],
    ],
    [
      'a zoned value for DATETIME drops the zone',
      { dt: { lt: ['2024-01-01T01:30:00-05:00'] } },
      ' WHERE `dt` < CAST(? AS DATETIME(6))',
      ['2024-01-01 01:30:00'],
    ],
  ])('%s', (_label, filters, sql, values) => {
    expect(where(filters)).toEqual({ sql, values });
  });

  it('ANDs operators of one field in a fixed order, and fields in order', () => {
    expect(where({ n: { like: ['1%'], lt: [9], gt: [1] }, name: { eq: ['x'] } })).toEqual({
      sql: ` WHERE \`n\` > ${DEC} AND \`n\` < ${DEC} AND \`n\` LIKE ? AND \`name\` = ?`,
      values: [1, 9, '1%', 'x'],
    });
  });

  it('skips empty operator lists and appends nothing without filters', () => {
    expect(where({ n: { eq: [] } })).toEqual({ sql: '', values: [] });
    expect(where({})).toEqual({ sql: '', values: [] });
  });

  valuesStayOutOfSqlCheck(where, 'name');

  it('binds values uncast for a column without engine type', () => {
    const sql = new MySqlStatementBuilder();
    buildWhere({ x: { eq: [1] } }, [{ name: 'x', dataType: 'int' }], sql);
    expect(sql.build().text).toBe(' WHERE `x` = ?');
  });

  it('cuts the statement at its placeholders only, and refuses a NUL elsewhere rather than splice a value there', () => {
    const sql = new MySqlStatementBuilder();
    buildWhere({ 'a?b': { eq: ['?'] }, n: { in: [1, 2] } }, COLUMNS, sql);
    expect(sql.build().fragments).toEqual([' WHERE `a?b` = ', ' AND `n` IN (CAST(', ' AS DECIMAL(65,30)), CAST(', ' AS DECIMAL(65,30)))']);
    const odd = new MySqlStatementBuilder();
    buildWhere({ 'a\u0000b': { eq: [1] } }, [], odd);
    expect(() => odd.build()).toThrow(/NUL/);
  });
});

describe('zoned date strings', () => {
  it.each<[string, string, string]>([
    ['timestamp', '2024-01-15T10:20:30Z', '2024-01-15 10:20:30'],
    ['timestamp', '2024-01-15 10:20:30.123456+0530', '2024-01-15 04:50:30.123456'],
    ['timestamp', '2024-03-01T00:30-01:00', '2024-03-01 01:30:00'],
    ['timestamp', '2024-03-01T00:30:00+01', '2024-02-29 23:30:00'],
    ['timestamp', '0099-01-01T00:30:00+01:00', '0098-12-31 23:30:00'],
    ['date', '2024-01-15T23:00:00-05:00', '2024-01-15 23:00:00'],
  ])('%s %s → %s', (kind, value, expected) => {
    expect(temporalValue(value, kind as 'timestamp' | 'date')).toBe(expected);
  });

  it('leaves unzoned strings, other kinds and non-strings alone', () => {
    expect(temporalValue('2024-01-15 10:20:30', 'timestamp')).toBe('2024-01-15 10:20:30');
    expect(temporalValue('2024-01-15', 'timestamp')).toBe('2024-01-15');
    expect(temporalValue('10:00:00Z', 'time')).toBe('10:00:00Z');
    expect(temporalValue('2024-01-15T10:20:30Z', 'text')).toBe('2024-01-15T10:20:30Z');
    expect(temporalValue(20240115, 'date')).toBe(20240115);
  });
});
