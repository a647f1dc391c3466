import { describe, expect, it } from 'vitest';
import type { FilterScalar } from '../../request/data-request.js';
import { SqlColumnFilter } from './sql-column-filter.js';

/** The standard forms only: `$n` placeholders, values collected in order. */
class PlainFilter extends SqlColumnFilter {
  readonly values: FilterScalar[] = [];

  override bind(value: FilterScalar): string {
    this.values.push(value);
    return '$' + this.values.length;
  }

  override like(pattern: FilterScalar): string {
    return `${this.subject} LIKE ${this.bind(pattern)}`;
  }
}

describe('the SQL every engine shares', () => {
  it.each<[string, FilterScalar[], boolean, string, FilterScalar[]]>([
    ['one value', [1], false, 'c = $1', [1]],
    ['one value, negated', [1], true, 'c <> $1', [1]],
    ['several values', [1, 2], false, 'c IN ($1, $2)', [1, 2]],
    ['several values, negated', [1, 2], true, 'c NOT IN ($1, $2)', [1, 2]],
    ['only null', [null], false, 'c IS NULL', []],
    ['only null, negated', [null], true, 'c IS NOT NULL', []],
    ['a value and null: matches either', [1, null], false, '(c = $1 OR c IS NULL)', [1]],
    ['a value and null, negated: matches neither', [null, 1], true, '(c <> $1 AND c IS NOT NULL)', [1]],
    ['several values and null', [1, null, 2], false, '(c IN ($1, $2) OR c IS NULL)', [1, 2]],
    ['several values and null, negated', [1, null, 2], true, '(c NOT IN ($1, $2) AND c IS NOT NULL)', [1, 2]],
  ])('membership: %s', (_name, list, negated, sql, values) => {
    const filter = new PlainFilter('c');
    expect(filter.membership(list, negated)).toBe(sql);
    expect(filter.values).toEqual(values);
  });

  it('groups the tests an engine gives for several values with the IS NULL test, flat', () => {
    class Chunked extends PlainFilter {
      override several(values: readonly Exclude<FilterScalar, null>[], negated: boolean): string[] {
        return values.map((value) => this.compare(negated ? '<>' : '=', value));
      }
    }
    expect(new Chunked('c').membership([1, 2, null], false)).toBe('(c = $1 OR c = $2 OR c IS NULL)');
    expect(new Chunked('c').membership([1, 2], true)).toBe('(c <> $1 AND c <> $2)');
  });

  it('compares, with a null bound as a value', () => {
    const filter = new PlainFilter('c');
    expect([filter.comparison('gt', 1), filter.comparison('gte', 2), filter.comparison('lt', null), filter.comparison('lte', 4)]).toEqual([
      'c > $1',
      'c >= $2',
      'c < $3',
      'c <= $4',
    ]);
    expect(filter.values).toEqual([1, 2, null, 4]);
    expect(filter.between('a', 'b')).toBe('c BETWEEN $5 AND $6');
  });
});
