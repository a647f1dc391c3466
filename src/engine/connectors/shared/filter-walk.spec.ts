import { describe, expect, it } from 'vitest';
import type { FilterScalar } from '../../request/data-request.js';
import type { ColumnInfo } from './engine-connector.js';
import { type FieldClauses, walkFilters } from './filter-walk.js';

/** Renders each form as text, to see which form every operator took and with which values. */
const forms: FieldClauses<string> = {
  membership: (values, negated) => `${negated ? 'not-in' : 'in'} ${JSON.stringify(values)}`,
  comparison: (operator, value) => `${operator} ${JSON.stringify(value)}`,
  between: (low, high) => `between ${JSON.stringify(low)} ${JSON.stringify(high)}`,
  like: (pattern) => `like ${JSON.stringify(pattern)}`,
};

describe('walking filters', () => {
  it('renders every operator in a fixed order, whatever the order given, and skips those without values', () => {
    const walked = walkFilters(
      {
        a: {
          like: ['x%'],
          ne: [1],
          nin: [2, null],
          in: [3],
          between: [4, 5],
          lte: [6],
          lt: [],
          gte: [8],
          gt: [9],
          eq: [null],
        },
      },
      [],
      () => forms,
    );
    expect(walked).toEqual([
      ['a', ['in [null]', 'gt 9', 'gte 8', 'lte 6', 'between 4 5', 'in [3]', 'not-in [2,null]', 'not-in [1]', 'like "x%"']],
    ]);
  });

  it('walks fields in the order given, with their columns; a field the engine skips is left out', () => {
    const columns: ColumnInfo[] = [
      { name: 'b', dataType: 'int' },
      { name: 'a', dataType: 'text' },
    ];
    const seen: [string, string | undefined][] = [];
    const walked = walkFilters({ a: { eq: [1] }, skip: { eq: [2] }, none: { eq: [] }, b: { gt: [3] } }, columns, (field, column) => {
      seen.push([field, column?.dataType]);
      return field === 'skip' ? undefined : forms;
    });
    expect(seen).toEqual([
      ['a', 'text'],
      ['skip', undefined],
      ['none', undefined],
      ['b', 'int'],
    ]);
    expect(walked).toEqual([
      ['a', ['in [1]']],
      ['none', []],
      ['b', ['gt 3']],
    ]);
  });

  it('hands over values as given, nulls included', () => {
    const values: FilterScalar[] = [null, 'x'];
    expect(walkFilters({ f: { between: values, like: [null] } }, [], () => forms)).toEqual([['f', ['between null "x"', 'like null']]]);
  });
});
