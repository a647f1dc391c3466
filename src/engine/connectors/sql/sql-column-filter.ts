import type { FilterScalar } from '../../request/data-request.js';
import type { ComparisonOperator, FieldClauses } from '../shared/filter-walk.js';

export type PresentScalar = Exclude<FilterScalar, null>;

export type SqlComparison = '=' | '<>' | '>' | '>=' | '<' | '<=';

const COMPARISON: Readonly<Record<ComparisonOperator, SqlComparison>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/**
 * How one column is filtered in one engine's SQL. This class holds what the SQL engines share, so
 * the same dataset and filter give the same rows on each: the NULL semantics of value lists and
 * the standard SQL forms. An engine makes one per filtered field (see where-builder.ts), holding
 * the column's quoted name and type and where its values are bound; it supplies `bind` and `like`
 * and overrides a form where it needs other SQL (an array parameter, a LOB comparison, a JSON list).
 */
export abstract class SqlColumnFilter implements FieldClauses<string> {
  /** @param subject the column as compared: its quoted name, or an expression of it. */
  constructor(readonly subject: string) {}

  /**
   * One value, bound (never written into the SQL): its placeholder, wrapped in whatever makes it
   * compare as the column's type. A null is bound as NULL, and so matches nothing, which is what
   * the SQL comparison with NULL means.
   */
  abstract bind(value: FilterScalar): string;

  /** `like [pattern]`, with PostgreSQL's reading of the pattern: `%` and `_` wildcards, `\` escapes. */
  abstract like(pattern: FilterScalar): string;

  /** `subject <operator> value`; also the test of a single `eq`/`ne` value. */
  compare(operator: SqlComparison, value: FilterScalar): string {
    return `${this.subject} ${operator} ${this.bind(value)}`;
  }

  comparison(operator: ComparisonOperator, value: FilterScalar): string {
    return this.compare(COMPARISON[operator], value);
  }

  between(low: FilterScalar, high: FilterScalar): string {
    return `${this.subject} BETWEEN ${this.bind(low)} AND ${this.bind(high)}`;
  }

  /**
   * NULL inside a value list is treated as a value, not as an unknown:
   * - `eq`/`in` [1, 2, null]  → `(c IN (1, 2) OR c IS NULL)`: matches 1, 2 or NULL;
   * - `ne`/`nin` [1, 2, null] → `(c NOT IN (1, 2) AND c IS NOT NULL)`: matches none of them.
   * Without a null in the list, `ne`/`nin` keep plain SQL semantics: NULL rows never match `<>` or
   * NOT IN. One value is `=`/`<>`, several are `several`.
   */
  membership(list: readonly FilterScalar[], negated: boolean): string {
    const present = list.filter((v): v is PresentScalar => v !== null);
    const tests =
      present.length === 1 ? [this.compare(negated ? '<>' : '=', present[0])] : present.length > 1 ? this.several(present, negated) : [];
    if (present.length < list.length) tests.push(`${this.subject} ${negated ? 'IS NOT NULL' : 'IS NULL'}`);
    return tests.length === 1 ? tests[0] : '(' + tests.join(negated ? ' AND ' : ' OR ') + ')';
  }

  /**
   * The tests of two or more values, in a new array that `membership` ORs (negated: ANDs) with each
   * other and with the list's IS NULL test: an IN list by default. No null is among `values`; a
   * test that replaces the IN list (with a bound array or document) must keep IN's meaning: a NULL
   * subject matches neither it nor its negation.
   */
  several(values: readonly PresentScalar[], negated: boolean): string[] {
    return [`${this.subject} ${negated ? 'NOT IN' : 'IN'} (${values.map((value) => this.bind(value)).join(', ')})`];
  }
}
