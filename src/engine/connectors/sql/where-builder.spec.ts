import { describe, expect, it } from 'vitest';
import type { FilterScalar } from '../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { SqlColumnFilter } from './sql-column-filter.js';
import { buildSqlWhere } from './where-builder.js';

class TypedFilter extends SqlColumnFilter {
  constructor(
    field: string,
    private readonly type: string,
    private readonly values: FilterScalar[],
  ) {
    super(`"${field}"`);
  }

  override bind(value: FilterScalar): string {
    this.values.push(value);
    return `$${this.values.length}::${this.type}`;
  }

  override like(pattern: FilterScalar): string {
    return `${this.subject}::text LIKE ${this.bind(pattern)}`;
  }
}

const COLUMNS: ColumnInfo[] = [
  { name: 'n', dataType: 'integer' },
  { name: 'name', dataType: 'text' },
];

describe('building a WHERE predicate', () => {
  it('ANDs every field and operator, binding values in the order they appear', () => {
    const values: FilterScalar[] = [];
    const where = buildSqlWhere(
      { name: { like: ['a%'], eq: ['x', null] }, n: { between: [1, 9], nin: [3, 4] } },
      COLUMNS,
      (field, column) => new TypedFilter(field, column?.dataType ?? 'unknown', values),
    );
    expect(where).toBe(
      '("name" = $1::text OR "name" IS NULL) AND "name"::text LIKE $2::text AND "n" BETWEEN $3::integer AND $4::integer AND "n" NOT IN ($5::integer, $6::integer)',
    );
    expect(values).toEqual(['x', 'a%', 1, 9, 3, 4]);
  });

  it('is empty when no filter has values', () => {
    expect(buildSqlWhere({}, COLUMNS, (field) => new TypedFilter(field, 'x', []))).toBe('');
    expect(buildSqlWhere({ n: { eq: [] } }, COLUMNS, (field) => new TypedFilter(field, 'x', []))).toBe('');
  });

  it('makes a field without a column with no type', () => {
    const values: FilterScalar[] = [];
    expect(
      buildSqlWhere({ other: { gt: [1] } }, COLUMNS, (field, column) => new TypedFilter(field, column?.dataType ?? 'unknown', values)),
    ).toBe('"other" > $1::unknown');
  });
});
