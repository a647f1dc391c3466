import { describe, expect, it } from 'vitest';
import type { FilterCondition, FilterScalar } from '../../request/data-request.js';
import { buildWhere } from './sqlserver-filter.js';
import type { SqlParam } from './sqlserver-parameters.js';
import { MAX_STATEMENT_PARAMS } from './sqlserver-json-list.js';
import { buildSelect } from './sqlserver-sql.js';
import { column, tableOf } from './testing/fake-datasource.js';

const COLUMNS = [
  column('n', 'int'),
  column('name', 'nvarchar(20)'),
  column('code', 'varchar(10)'),
  column('at', 'datetime2(3)'),
  column('day', 'date'),
  column('ok', 'bit'),
  column('ratio', 'float'),
  column('guid', 'uniqueidentifier'),
  column('blob', 'varbinary(16)'),
  column('doc', 'xml'),
];

const where = (filters: Record<string, FilterCondition>, params: SqlParam[] = []) => ({
  sql: buildWhere(filters, COLUMNS, params),
  params,
});
const range = (length: number, from = 0) => Array.from({ length }, (_, i) => i + from);
/** The values a JSON parameter carries, as OPENJSON reads them. */
const elements = (param: SqlParam): unknown[] => JSON.parse(param.value as string);

const TEXT = 'CAST(CAST([value] AS varbinary(max)) AS nvarchar(max))';
const INT = 'CAST([value] AS decimal(38,28))';

describe('SQL Server lists beyond the parameter limit', () => {
  it('keeps one parameter per value while the statement stays within the limit', () => {
    const { sql, params } = where({ n: { in: range(MAX_STATEMENT_PARAMS) } });
    expect(params).toHaveLength(MAX_STATEMENT_PARAMS);
    expect(sql).toMatch(/^\[n\] IN \(CAST\(@p1 AS decimal\(38,28\)\), .*, CAST\(@p2098 AS decimal\(38,28\)\)\)$/);
  });

  it.each([MAX_STATEMENT_PARAMS + 1, 10_000, 100_000])('binds %i values as one JSON parameter', (size) => {
    const values = range(size);
    const { sql, params } = where({ n: { in: values } });
    expect(sql).toBe(`[n] IN (SELECT ${INT} FROM OPENJSON(@p1))`);
    expect(params.map((p) => [p.name, p.type])).toEqual([['p1', 'nvarchar']]);
    // As the scalar parameters were: decimal text, CAST to the column's exact decimal.
    expect(elements(params[0])).toEqual(values.map(String));
  });

  it('keeps the null semantics of in / nin', () => {
    const values: FilterScalar[] = [...range(3_000), null];
    expect(where({ n: { in: values } }).sql).toBe(`([n] IN (SELECT ${INT} FROM OPENJSON(@p1)) OR [n] IS NULL)`);
    expect(where({ n: { nin: values } }).sql).toBe(`([n] NOT IN (SELECT ${INT} FROM OPENJSON(@p1)) AND [n] IS NOT NULL)`);
    expect(where({ n: { nin: range(3_000) } }).sql).toBe(`[n] NOT IN (SELECT ${INT} FROM OPENJSON(@p1))`);
    expect(elements(where({ n: { in: values } }).params[0])).toHaveLength(3_000);
  });

  it('reads text back as a coercible-default nvarchar(max), so the column keeps its collation', () => {
    const awkward = ['a"b', 'c\\d', "it's", 'emoji 🎉', 'tab\there', ' padded '];
    const values = [...range(2_500).map((i) => `v${i}`), ...awkward];
    for (const field of ['name', 'code']) {
      const { sql, params } = where({ [field]: { in: values } });
      expect(sql).toBe(`[${field}] IN (SELECT ${TEXT} FROM OPENJSON(@p1))`);
      expect(elements(params[0])).toEqual(values);
    }
  });

  it('reads each kind back as its own parameter and CAST did', () => {
    const many = <T>(values: T[]) => [...values, ...range(MAX_STATEMENT_PARAMS).map(() => values[0])];
    const cases: [string, FilterScalar[], string, unknown[]][] = [
      [
        'at',
        many(['2024-01-15T10:20', '2024-01-15 10:20:30.123456789Z']),
        'CAST([value] AS datetime2(7))',
        ['2024-01-15T10:20:00', '2024-01-15T10:20:30.1234567'],
      ],
      ['day', many(['2024-01-15']), 'CAST([value] AS date)', ['2024-01-15']],
      [
        'guid',
        many(['6F9619FF-8B86-D011-B42D-00C04FC964FF']),
        'CAST([value] AS uniqueidentifier)',
        ['6F9619FF-8B86-D011-B42D-00C04FC964FF'],
      ],
      // Bits bound as bits and texts CAST to bit read back alike: one parameter.
      ['ok', many([true, 'f', 'YES', 0, 'maybe']), 'CAST([value] AS bit)', [1, 0, 1, 0, 'maybe']],
      ['ratio', many([0.1, 1e21, -2.5e-7, '3.25']), 'CAST([value] AS float)', [0.1, 1e21, -2.5e-7, '3.25']],
      ['blob', many(['3q2+7w==']), 'CONVERT(varbinary(max), [value], 2)', ['deadbeef']],
    ];
    for (const [field, values, expression, head] of cases) {
      const { sql, params } = where({ [field]: { in: values } });
      expect(sql).toBe(`[${field}] IN (SELECT ${expression} FROM OPENJSON(@p1))`);
      expect(params).toHaveLength(1);
      expect(elements(params[0]).slice(0, head.length)).toEqual(head);
      expect(elements(params[0])).toHaveLength(values.length);
    }
  });

  it('compares types without = of their own through their text, as a short list does', () => {
    const { sql } = where({ doc: { nin: range(3_000).map((i) => `<a>${i}</a>`) } });
    expect(sql).toBe(`CAST([doc] AS nvarchar(max)) NOT IN (SELECT ${TEXT} FROM OPENJSON(@p1))`);
  });

  it('gives values that bind differently a parameter each, joined as IN joins its comparisons', () => {
    // Binary columns take base64 text; other values are bound as text, uncast.
    const values: FilterScalar[] = [...range(MAX_STATEMENT_PARAMS).map(() => 'AAE='), 5];
    const { sql, params } = where({ blob: { in: values } });
    expect(sql).toBe(
      `([blob] IN (SELECT CONVERT(varbinary(max), [value], 2) FROM OPENJSON(@p1)) OR [blob] IN (SELECT ${TEXT} FROM OPENJSON(@p2)))`,
    );
    expect(elements(params[1])).toEqual(['5']);
    expect(where({ blob: { nin: values } }).sql).toMatch(/^\(\[blob\] NOT IN \(.*@p1\)\) AND \[blob\] NOT IN \(.*@p2\)\)\)$/);
  });

  it('turns every list of a statement over the limit into JSON, short ones too; single values stay parameters', () => {
    const { sql, params } = where(
      { n: { in: range(1_500), gt: [3] }, name: { in: range(1_000).map(String), eq: ['x'] }, code: { nin: ['a', 'b'] } },
      [{ name: 'p1', type: 'nvarchar', value: 'earlier' }],
    );
    expect(sql).toBe(
      `[n] > CAST(@p2 AS decimal(38,28)) AND [n] IN (SELECT ${INT} FROM OPENJSON(@p3)) AND ` +
        `[name] = @p4 AND [name] IN (SELECT ${TEXT} FROM OPENJSON(@p5)) AND [code] NOT IN (SELECT ${TEXT} FROM OPENJSON(@p6))`,
    );
    expect(params.map((p) => p.name)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    expect(elements(params[5])).toEqual(['a', 'b']);
  });

  it('leaves statements within the limit exactly as before, however many lists they have', () => {
    const { sql, params } = where({ n: { in: range(1_000) }, name: { in: range(1_000).map(String) } });
    expect(params).toHaveLength(2_000);
    expect(sql).not.toContain('OPENJSON');
  });

  it('builds a whole SELECT with one parameter for a 70,000-value list', () => {
    const table = tableOf('dbo', 'items', [column('id', 'int'), column('name', 'nvarchar(20)')], ['id']);
    const statement = buildSelect({
      table,
      columns: table.columns.slice(0, 1),
      filters: { name: { in: [...range(70_000).map(String), null] } },
    });
    expect(statement.text).toBe(
      `SELECT [id] FROM [dbo].[items] AS [src] WHERE ([name] IN (SELECT ${TEXT} FROM OPENJSON(@p1)) OR [name] IS NULL) ORDER BY [src].[id]`,
    );
    expect(statement.params).toHaveLength(1);
  });
});
