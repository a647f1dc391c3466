import { describe, expect, it } from 'vitest';
import type { FilterCondition } from '../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { bindParameters, buildWhere } from './postgres-filter.js';
import { valuesStayOutOfSqlCheck } from '../testing/filter-checks.js';

const col = (name: string, typeOid: number, category: string, castType: string): ColumnInfo => ({
  name,
  dataType: castType,
  engineType: { typeOid, category, castType },
});

const COLUMNS = [
  col('n', 23, 'N', 'integer'),
  col('name', 25, 'S', 'text'),
  col('at', 1184, 'D', 'timestamp with time zone'),
  col('code', 1042, 'S', 'bpchar'),
  col('Mixed"Col', 1700, 'N', 'numeric'),
  col('tags', 1009, 'A', 'text[]'),
];

const where = (filters: Record<string, FilterCondition>, values: unknown[] = []) => {
  const sql = buildWhere(filters, COLUMNS, bindParameters(values));
  return { sql, values };
};

describe('PostgreSQL filter translation', () => {
  it.each<[string, Record<string, FilterCondition>, string, unknown[]]>([
    ['eq one value', { n: { eq: [5] } }, '"n" = $1::integer', [5]],
    ['eq several values → = ANY(array)', { n: { eq: [1, 2, 3] } }, '"n" = ANY($1::integer[])', [[1, 2, 3]]],
    ['eq [null] → IS NULL', { n: { eq: [null] } }, '"n" IS NULL', []],
    ['eq with null in the list → IN … OR IS NULL', { n: { eq: [1, null] } }, '("n" = $1::integer OR "n" IS NULL)', [1]],
    ['ne one value', { n: { ne: [5] } }, '"n" <> $1::integer', [5]],
    ['ne [null] → IS NOT NULL', { n: { ne: [null] } }, '"n" IS NOT NULL', []],
    ['ne several → <> ALL(array)', { n: { ne: [1, 2] } }, '"n" <> ALL($1::integer[])', [[1, 2]]],
    ['gt', { at: { gt: ['2024-01-01'] } }, '"at" > $1::timestamp with time zone', ['2024-01-01']],
    ['gte', { n: { gte: [1] } }, '"n" >= $1::integer', [1]],
    ['lt', { n: { lt: [1] } }, '"n" < $1::integer', [1]],
    ['lte', { n: { lte: ['7'] } }, '"n" <= $1::integer', ['7']],
    [
      'between, inclusive',
      { at: { between: ['2024-01-01', '2024-12-31'] } },
      '"at" BETWEEN $1::timestamp with time zone AND $2::timestamp with time zone',
      ['2024-01-01', '2024-12-31'],
    ],
    ['in', { name: { in: ['a', 'b'] } }, '"name" = ANY($1::text[])', [['a', 'b']]],
    ['in, one value', { name: { in: ['a'] } }, '"name" = $1::text', ['a']],
    ['in with null', { name: { in: ['a', 'b', null] } }, '("name" = ANY($1::text[]) OR "name" IS NULL)', [['a', 'b']]],
    ['in [null] only', { name: { in: [null] } }, '"name" IS NULL', []],
    ['nin', { name: { nin: ['a', 'b'] } }, '"name" <> ALL($1::text[])', [['a', 'b']]],
    [
      'nin with null, several → <> ALL … AND IS NOT NULL',
      { name: { nin: ['a', null, 'b'] } },
      '("name" <> ALL($1::text[]) AND "name" IS NOT NULL)',
      [['a', 'b']],
    ],
    ['in on bpchar: the array has the column type', { code: { in: ['ab', 'cd'] } }, '"code" = ANY($1::bpchar[])', [['ab', 'cd']]],
    [
      'in on a multi-word type',
      { at: { in: ['2024-01-01', '2024-01-02'] } },
      '"at" = ANY($1::timestamp with time zone[])',
      [['2024-01-01', '2024-01-02']],
    ],
    [
      'in on an array column: each value cast whole',
      { tags: { in: ['{a,b}', '{c}'] } },
      '"tags" = ANY(SELECT v::text[] FROM unnest($1::text[]) AS v)',
      [['{a,b}', '{c}']],
    ],
    [
      'nin on an array column',
      { tags: { nin: ['{a,b}', '{c}', null] } },
      '("tags" <> ALL(SELECT v::text[] FROM unnest($1::text[]) AS v) AND "tags" IS NOT NULL)',
      [['{a,b}', '{c}']],
    ],
    ['nin with null → NOT IN … AND IS NOT NULL', { name: { nin: ['a', null] } }, '("name" <> $1::text AND "name" IS NOT NULL)', ['a']],
    ['like on text', { name: { like: ['ab%'] } }, '"name" LIKE $1::text', ['ab%']],
    ['like on bpchar stays native', { code: { like: ['a_'] } }, '"code" LIKE $1::text', ['a_']],
    ['like on a non-text column casts the column', { n: { like: ['1%'] } }, '"n"::text LIKE $1::text', ['1%']],
    ['quoted column name', { 'Mixed"Col': { eq: ['1.50'] } }, '"Mixed""Col" = $1::numeric', ['1.50']],
    ['bpchar casts without length (char(1) would cut)', { code: { eq: ['abc'] } }, '"code" = $1::bpchar', ['abc']],
  ])('%s', (_label, filters, sql, values) => {
    expect(where(filters)).toEqual({ sql, values });
  });

  it('ANDs operators of one field in a fixed order, and fields in order', () => {
    expect(where({ n: { like: ['1%'], lt: [9], gt: [1] }, name: { eq: ['x'] } })).toEqual({
      sql: '"n" > $1::integer AND "n" < $2::integer AND "n"::text LIKE $3::text AND "name" = $4::text',
      values: [1, 9, '1%', 'x'],
    });
  });

  it('continues the numbering of values already bound', () => {
    expect(where({ n: { eq: [1] } }, ['earlier'])).toEqual({ sql: '"n" = $2::integer', values: ['earlier', 1] });
  });

  it('skips empty operator lists and returns nothing without filters', () => {
    expect(where({ n: { eq: [] } })).toEqual({ sql: '', values: [] });
    expect(where({})).toEqual({ sql: '', values: [] });
  });

  valuesStayOutOfSqlCheck(where, 'name');

  it('binds values uncast for a column without engine type', () => {
    expect(buildWhere({ x: { eq: [1] } }, [{ name: 'x', dataType: 'integer' }], bindParameters([]))).toBe('"x" = $1');
    const values: unknown[] = [];
    expect(buildWhere({ x: { in: [1, 2] } }, [{ name: 'x', dataType: 'integer' }], bindParameters(values))).toBe('"x" = ANY($1)');
    expect(values).toEqual([[1, 2]]);
  });

  it('binds any number of values as one parameter (a Bind message carries at most 65,535)', () => {
    const many = Array.from({ length: 70_000 }, (_, i) => i);
    const values: unknown[] = ['earlier'];
    const sql = buildWhere({ n: { in: [...many, null], nin: many.slice(0, 3) }, name: { eq: ['x'] } }, COLUMNS, bindParameters(values));
    expect(sql).toBe('("n" = ANY($2::integer[]) OR "n" IS NULL) AND "n" <> ALL($3::integer[]) AND "name" = $4::text');
    expect(values).toEqual(['earlier', many, [0, 1, 2], 'x']);
  });
});
