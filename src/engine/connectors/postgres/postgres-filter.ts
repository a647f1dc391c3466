import type { FilterCondition, FilterScalar } from '../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { SqlColumnFilter, type PresentScalar } from '../sql/sql-column-filter.js';
import { buildSqlWhere } from '../sql/where-builder.js';
import { quoteIdent } from './postgres-identifier.js';
import { postgresColumnType, type PostgresColumnType } from './postgres-types.js';

/** String-category types compare with LIKE natively (and keep their collation, e.g. citext). */
const TEXT_CATEGORY = 'S';
const ARRAY_CATEGORY = 'A';

/**
 * Where bound values go. Each value is handed over as it is, with the cast that reads it (`::date`,
 * `::numeric[]`, or '' to let the server infer the type), and the builder gets back the SQL
 * expression: `$n::date` for a statement with bind parameters, a setting read back with
 * `current_setting` for COPY, which takes none. Either way no value is ever part of the SQL text.
 */
export interface SqlParameters {
  add(value: unknown, cast: string): string;
}

/** `$1`, `$2`, …: the values go into `values`, numbered after those already there. */
export function bindParameters(values: unknown[]): SqlParameters {
  return {
    add: (value, cast) => {
      values.push(value);
      return '$' + values.length + cast;
    },
  };
}

/**
 * Filters → one WHERE clause (sql/where-builder.ts), with the semantics every SQL engine shares
 * (sql/sql-column-filter.ts).
 *
 * Each value is bound with the cast of the column's type: `$n::date` makes '2024-01-01' compare as
 * a date, '10' as a number, etc. The cast type carries no typmod, so numeric(38,10) or varchar(5)
 * never round or cut it.
 *
 * Several values are one array parameter, however many: a Bind message carries at most 65,535
 * parameters. `= ANY` / `<> ALL` over an array without nulls mean exactly IN / NOT IN, and each
 * element is read by its type's input function, as `$n::type` reads a single value.
 */
class PostgresColumnFilter extends SqlColumnFilter {
  private readonly cast: string;

  constructor(
    field: string,
    private readonly type: PostgresColumnType | null,
    private readonly params: SqlParameters,
  ) {
    super(quoteIdent(field));
    this.cast = type === null ? '' : '::' + type.castType;
  }

  override bind(value: FilterScalar): string {
    return this.params.add(value, this.cast);
  }

  /** Two or more values as one array parameter (see above). */
  override several(values: readonly PresentScalar[], negated: boolean): string[] {
    const list = [...values];
    const test = `${this.subject} ${negated ? '<> ALL' : '= ANY'}`;
    const { type, params } = this;
    // Without a known type the server infers the parameter as an array of the column's type.
    if (type === null) return [`${test}(${params.add(list, '')})`];
    // An array column: ANY over an array of arrays would compare with their elements, so the
    // values travel as texts and each is cast whole.
    if (type.category === ARRAY_CATEGORY) return [`${test}(SELECT v::${type.castType} FROM unnest(${params.add(list, '::text[]')}) AS v)`];
    return [`${test}(${params.add(list, `::${type.castType}[]`)})`];
  }

  override like(pattern: FilterScalar): string {
    // Non-text columns are matched on their text form; the pattern is always text.
    const isText = this.type === null || this.type.category === TEXT_CATEGORY;
    return `${isText ? this.subject : this.subject + '::text'} LIKE ${this.params.add(pattern, '::text')}`;
  }
}

/**
 * Hands every value to `params` and returns the predicate text, '' when no filter applies.
 * `columns` are the table's columns, for types.
 */
export function buildWhere(
  filters: Readonly<Record<string, FilterCondition>>,
  columns: readonly ColumnInfo[],
  params: SqlParameters,
): string {
  return buildSqlWhere(
    filters,
    columns,
    (field, column) => new PostgresColumnFilter(field, column === undefined ? null : postgresColumnType(column), params),
  );
}
