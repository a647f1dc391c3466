import { describe, expect, it } from 'vitest';
import type { FilterCondition } from '../../request/data-request.js';
import { bindingFor, buildWhere, decimalCast, decimalText, likePattern, temporalValue } from './sqlserver-filter.js';
import type { SqlParam } from './sqlserver-parameters.js';
import { sqlServerColumnType } from './sqlserver-types.js';
import { column } from './testing/fake-datasource.js';
import { expectMapsEach } from '../testing/mapping-checks.js';

const COLUMNS = [
  column('n', 'int'),
  column('name', 'nvarchar(20)'),
  column('code', 'varchar(10)'),
  column('at', 'datetime2(3)'),
  column('stamp', 'datetime'),
  column('zoned', 'datetimeoffset(7)'),
  column('day', 'date'),
  column('t', 'time(7)'),
  column('amount', 'decimal(12,2)'),
  column('huge', 'decimal(38,0)'),
  column('cash', 'money'),
  column('big', 'bigint'),
  column('ok', 'bit'),
  column('ratio', 'float'),
  column('guid', 'uniqueidentifier'),
  column('blob', 'varbinary(16)'),
  column('doc', 'xml'),
  column('memo', 'ntext'),
  column('place', 'geography'),
  column('Mixed]Col', 'nvarchar(10)'),
];

const where = (filters: Record<string, FilterCondition>) => {
  const params: SqlParam[] = [];
  const sql = buildWhere(filters, COLUMNS, params);
  return { sql, params: params.map((p) => [p.name, p.type, p.value]) };
};

const INT = 'CAST(@p1 AS decimal(38,28))';

describe('SQL Server filter translation', () => {
  it.each<[string, Record<string, FilterCondition>, string, unknown[][]]>([
    ['eq one value', { n: { eq: [5] } }, `[n] = ${INT}`, [['p1', 'nvarchar', '5']]],
    [
      'eq several values → IN',
      { n: { eq: [1, 2] } },
      '[n] IN (CAST(@p1 AS decimal(38,28)), CAST(@p2 AS decimal(38,28)))',
      [
        ['p1', 'nvarchar', '1'],
        ['p2', 'nvarchar', '2'],
      ],
    ],
    ['eq [null] → IS NULL', { n: { eq: [null] } }, '[n] IS NULL', []],
    ['eq with null in the list → = … OR IS NULL', { n: { eq: [1, null] } }, `([n] = ${INT} OR [n] IS NULL)`, [['p1', 'nvarchar', '1']]],
    ['ne one value', { n: { ne: [5] } }, `[n] <> ${INT}`, [['p1', 'nvarchar', '5']]],
    ['ne [null] → IS NOT NULL', { n: { ne: [null] } }, '[n] IS NOT NULL', []],
    [
      'ne several → NOT IN',
      { name: { ne: ['a', 'b'] } },
      '[name] NOT IN (@p1, @p2)',
      [
        ['p1', 'nvarchar', 'a'],
        ['p2', 'nvarchar', 'b'],
      ],
    ],
    [
      'nin with null → <> … AND IS NOT NULL',
      { name: { nin: ['a', null] } },
      '([name] <> @p1 AND [name] IS NOT NULL)',
      [['p1', 'nvarchar', 'a']],
    ],
    [
      'in',
      { name: { in: ['a', 'b'] } },
      '[name] IN (@p1, @p2)',
      [
        ['p1', 'nvarchar', 'a'],
        ['p2', 'nvarchar', 'b'],
      ],
    ],
    ['in, one value', { name: { in: ['a'] } }, '[name] = @p1', [['p1', 'nvarchar', 'a']]],
    ['in [null] only', { name: { in: [null] } }, '[name] IS NULL', []],
    [
      'in with null',
      { name: { in: ['a', 'b', null] } },
      '([name] IN (@p1, @p2) OR [name] IS NULL)',
      [
        ['p1', 'nvarchar', 'a'],
        ['p2', 'nvarchar', 'b'],
      ],
    ],
    [
      'gt on datetime2 compares as a date',
      { at: { gt: ['2024-01-01'] } },
      '[at] > CAST(@p1 AS datetime2(7))',
      [['p1', 'nvarchar', '2024-01-01']],
    ],
    [
      'datetime compares in datetime2 (its true instant)',
      { stamp: { lte: ['2024-01-01T10:00:00.999'] } },
      '[stamp] <= CAST(@p1 AS datetime2(7))',
      [['p1', 'nvarchar', '2024-01-01T10:00:00.999']],
    ],
    [
      'between dates, inclusive',
      { day: { between: ['2024-01-01', '2024-12-31'] } },
      '[day] BETWEEN CAST(@p1 AS date) AND CAST(@p2 AS date)',
      [
        ['p1', 'nvarchar', '2024-01-01'],
        ['p2', 'nvarchar', '2024-12-31'],
      ],
    ],
    [
      'a zoned value for datetime2 drops the zone',
      { at: { gte: ['2024-01-01T01:30:00.25+02:00'] } },
      '[at] >= CAST(@p1 AS datetime2(7))',
      [['p1', 'nvarchar', '2024-01-01T01:30:00.25']],
    ],
    [
      'a zoned value for datetimeoffset keeps it',
      { zoned: { lt: ['2024-01-01T01:30Z'] } },
      '[zoned] < CAST(@p1 AS datetimeoffset(7))',
      [['p1', 'nvarchar', '2024-01-01T01:30:00+00:00']],
    ],
    ['time', { t: { lt: ['10:00'] } }, '[t] < CAST(@p1 AS time(7))', [['p1', 'nvarchar', '10:00']]],
    [
      'decimal keeps its integer digits and room for fractions',
      { amount: { gt: ['10.50'] } },
      '[amount] > CAST(@p1 AS decimal(38,28))',
      [['p1', 'nvarchar', '10.50']],
    ],
    [
      'decimal(38,0) keeps all its integer digits',
      { huge: { lte: ['12345678901234567890123456789012345678'] } },
      '[huge] <= CAST(@p1 AS decimal(38,0))',
      [['p1', 'nvarchar', '12345678901234567890123456789012345678']],
    ],
    ['money', { cash: { eq: [0.1] } }, '[cash] = CAST(@p1 AS decimal(38,23))', [['p1', 'nvarchar', '0.1']]],
    [
      'bigint compares exactly beyond 2^53',
      { big: { eq: ['9223372036854775807'] } },
      '[big] = CAST(@p1 AS decimal(38,19))',
      [['p1', 'nvarchar', '9223372036854775807']],
    ],
    ['bit takes booleans as a typed bit', { ok: { eq: [true] } }, '[ok] = @p1', [['p1', 'bit', true]]],
    [
      'bit reads PostgreSQL boolean texts and numbers',
      { ok: { in: ['f', 'YES', 0] } },
      '[ok] IN (@p1, @p2, @p3)',
      [
        ['p1', 'bit', false],
        ['p2', 'bit', true],
        ['p3', 'bit', false],
      ],
    ],
    ['float takes numbers as a typed float', { ratio: { gt: [0.5] } }, '[ratio] > @p1', [['p1', 'float', 0.5]]],
    ['float casts a numeric string', { ratio: { gt: ['0.5'] } }, '[ratio] > CAST(@p1 AS float)', [['p1', 'nvarchar', '0.5']]],
    [
      'uniqueidentifier',
      { guid: { eq: ['123E4567-E89B-12D3-A456-426655440000'] } },
      '[guid] = CAST(@p1 AS uniqueidentifier)',
      [['p1', 'nvarchar', '123E4567-E89B-12D3-A456-426655440000']],
    ],
    [
      'binary compares with the base64 the results show',
      { blob: { eq: ['AP8Q'] } },
      '[blob] = @p1',
      [['p1', 'varbinary', Buffer.from([0, 255, 16])]],
    ],
    [
      'numbers and booleans against text are bound as text',
      { name: { eq: [5, true] } },
      '[name] IN (@p1, @p2)',
      [
        ['p1', 'nvarchar', '5'],
        ['p2', 'nvarchar', 'true'],
      ],
    ],
    ['xml compares through its text', { doc: { eq: ['<a/>'] } }, 'CAST([doc] AS nvarchar(max)) = @p1', [['p1', 'nvarchar', '<a/>']]],
    ['ntext compares through its text', { memo: { ne: ['x'] } }, 'CAST([memo] AS nvarchar(max)) <> @p1', [['p1', 'nvarchar', 'x']]],
    [
      'CLR types compare through their text',
      { place: { eq: ['POINT (1 2)'] } },
      '[place].ToString() = @p1',
      [['p1', 'nvarchar', 'POINT (1 2)']],
    ],
    [
      'like on text, % and _ only, backslash escapes',
      { name: { like: ['ab%'] } },
      "[name] LIKE @p1 ESCAPE N'\\'",
      [['p1', 'nvarchar', 'ab%']],
    ],
    ['like keeps a bracket literal', { code: { like: ['[a]%'] } }, "[code] LIKE @p1 ESCAPE N'\\'", [['p1', 'nvarchar', '\\[a]%']]],
    [
      'like on a number matches its text',
      { n: { like: [1] } },
      "CONVERT(varchar(20), [n]) LIKE @p1 ESCAPE N'\\'",
      [['p1', 'nvarchar', '1']],
    ],
    [
      'like on a date matches its ISO text',
      { day: { like: ['2024-01%'] } },
      "CONVERT(varchar(10), [day], 23) LIKE @p1 ESCAPE N'\\'",
      [['p1', 'nvarchar', '2024-01%']],
    ],
    ['like null matches nothing', { name: { like: [null] } }, "[name] LIKE @p1 ESCAPE N'\\'", [['p1', 'nvarchar', null]]],
    [
      'null in a comparison is bound and matches nothing',
      { at: { gt: [null] } },
      '[at] > CAST(@p1 AS datetime2(7))',
      [['p1', 'nvarchar', null]],
    ],
    ['quoted column name', { 'Mixed]Col': { eq: ['x'] } }, '[Mixed]]Col] = @p1', [['p1', 'nvarchar', 'x']]],
  ])('%s', (_label, filters, sql, params) => {
    expect(where(filters)).toEqual({ sql, params });
  });

  it('ANDs operators of one field in a fixed order, and fields in order, numbering parameters across them', () => {
    expect(where({ name: { like: ['a%'], lt: ['m'], gt: ['b'] }, ok: { eq: [false] } })).toEqual({
      sql: "[name] > @p1 AND [name] < @p2 AND [name] LIKE @p3 ESCAPE N'\\' AND [ok] = @p4",
      params: [
        ['p1', 'nvarchar', 'b'],
        ['p2', 'nvarchar', 'm'],
        ['p3', 'nvarchar', 'a%'],
        ['p4', 'bit', false],
      ],
    });
  });

  it('continues the numbering of parameters already bound', () => {
    const params: SqlParam[] = [{ name: 'p1', type: 'nvarchar', value: 'x' }];
    expect(buildWhere({ name: { eq: ['y'] } }, COLUMNS, params)).toBe('[name] = @p2');
  });

  it('skips empty operator lists and returns nothing without filters', () => {
    expect(where({ n: { eq: [] } })).toEqual({ sql: '', params: [] });
    expect(where({})).toEqual({ sql: '', params: [] });
  });

  it('never puts a value into the SQL text', () => {
    const { sql, params } = where({ name: { eq: ["'; DROP TABLE x; --"], like: ["%'%"] }, at: { gt: ["'); DROP TABLE y; --"] } });
    expect(sql).not.toContain('DROP');
    expect(params.map((p) => p[2])).toEqual(["'; DROP TABLE x; --", "%'%", "'); DROP TABLE y; --"]);
  });

  it('binds values as text for a column without engine type', () => {
    const params: SqlParam[] = [];
    expect(buildWhere({ x: { eq: [1] } }, [{ name: 'x', dataType: 'int' }], params)).toBe('[x] = @p1');
    expect(params).toEqual([{ name: 'p1', type: 'nvarchar', value: '1' }]);
  });
});

describe('SQL Server filter values', () => {
  it('writes numbers as plain decimal text (CAST refuses exponents)', () => {
    expect(decimalText(10)).toBe('10');
    expect(decimalText(-7.25)).toBe('-7.25');
    expect(decimalText(1.5e-7)).toBe('0.00000015');
    expect(decimalText(-2e-10)).toBe('-0.0000000002');
    expect(decimalText(1e21)).toBe('1000000000000000000000');
    expect(decimalText(1.25e22)).toBe('12500000000000000000000');
  });

  it('casts to an exact decimal wide enough for the column', () => {
    expect(decimalCast({ precision: 10, scale: 0 })).toBe('decimal(38,28)');
    expect(decimalCast({ precision: 12, scale: 2 })).toBe('decimal(38,28)');
    expect(decimalCast({ precision: 38, scale: 0 })).toBe('decimal(38,0)');
    expect(decimalCast({ precision: 5, scale: 5 })).toBe('decimal(38,37)');
    expect(decimalCast({ precision: 19, scale: 4 })).toBe('decimal(38,23)');
  });

  it.each<[string, string, string]>([
    ['datetime2', '2024-01-15T10:20:30Z', '2024-01-15T10:20:30'],
    ['datetime2', '2024-01-15 10:20:30.123456789+05:30', '2024-01-15T10:20:30.1234567'],
    ['datetime2', '2024-03-01T00:30', '2024-03-01T00:30:00'],
    ['date', '2024-01-15T23:00:00-05:00', '2024-01-15T23:00:00'],
    ['datetimeoffset', '2024-01-15T10:20:30+0530', '2024-01-15T10:20:30+05:30'],
    ['datetimeoffset', '2024-01-15T10:20:30-03', '2024-01-15T10:20:30-03:00'],
    ['datetimeoffset', '2024-01-15T10:20:30', '2024-01-15T10:20:30'],
  ])('%s reads %s as %s', (kind, value, expected) => {
    expect(temporalValue(value, kind as 'datetime2')).toBe(expected);
  });

  it('leaves dates, other shapes and other kinds alone', () => {
    expect(temporalValue('2024-01-15', 'datetime2')).toBe('2024-01-15');
    expect(temporalValue('yesterday', 'date')).toBe('yesterday');
    expect(temporalValue('10:00:00Z', 'time')).toBe('10:00:00Z');
    expect(temporalValue('2024-01-15T10:20:30Z', 'text')).toBe('2024-01-15T10:20:30Z');
  });

  it('rewrites like patterns so only % and _ are wildcards and backslash escapes', () => {
    expectMapsEach(likePattern, {
      '50%_off': '50%_off',
      '[abc]%': '\\[abc]%',
      'a\\%b': 'a\\%b',
      'a\\[b': 'a\\[b',
      '^x]': '^x]',
      'end\\': 'end\\',
    });
  });

  it('binds by column type', () => {
    const type = (t: string) => sqlServerColumnType(column('c', t));
    expect(bindingFor(type('int'), true)).toEqual({ type: 'nvarchar', value: '1', cast: 'decimal(38,28)' });
    expect(bindingFor(type('bit'), 'maybe')).toEqual({ type: 'nvarchar', value: 'maybe', cast: 'bit' });
    expect(bindingFor(type('bit'), 2)).toEqual({ type: 'bit', value: true });
    expect(bindingFor(type('real'), false)).toEqual({ type: 'nvarchar', value: '0', cast: 'float' });
    expect(bindingFor(type('date'), 20240115)).toEqual({ type: 'nvarchar', value: '20240115', cast: 'date' });
    expect(bindingFor(type('varbinary(4)'), null)).toEqual({ type: 'varbinary', value: null });
    expect(bindingFor(null, false)).toEqual({ type: 'nvarchar', value: 'false' });
  });
});
