import type { FilterCondition, FilterOperator, FilterScalar } from '../../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { quoteIdent } from './postgres-identifier.js';
import { postgresColumnType, type PostgresColumnType } from './postgres-types.js';
import { membershipPredicate, type PresentScalar } from '../sql/sql-membership.js';

/**
 * Filters → one WHERE clause (SPEC §4.3). Every field and operator is ANDed; operators of one
 * field are emitted in a fixed order so the SQL is deterministic.
 *
 * NULL inside a value list is treated as a value, not as an unknown:
 * - `eq`/`in` [1, 2, null]  → `(c = ANY($1) OR c IS NULL)`: matches 1, 2 or NULL.
 * - `ne`/`nin` [1, 2, null] → `(c <> ALL($1) AND c IS NOT NULL)`: matches none of them.
 * Without a null in the list, `ne`/`nin` keep plain SQL semantics: NULL rows never match `<>` or
 * NOT IN (as in the original). A null in `gt gte lt lte between like` is bound as NULL and so
 * matches nothing, which is what the SQL comparison means.
 *
 * Several values are one array parameter, however many: a Bind message carries at most 65,535
 * parameters. `= ANY` / `<> ALL` over an array without nulls mean exactly IN / NOT IN, and each
 * element is read by its type's input function, as `$n::type` reads a single value.
 */
const OPERATOR_ORDER: readonly FilterOperator[] = ['eq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'ne', 'like'];

const COMPARISON: Partial<Record<FilterOperator, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

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

interface FieldContext {
  readonly column: string;
  readonly type: PostgresColumnType | null;
  readonly cast: string;
  readonly isText: boolean;
  readonly params: SqlParameters;
}

function bind(ctx: FieldContext, value: FilterScalar): string {
  return ctx.params.add(value, ctx.cast);
}

/** Two or more values as one array parameter (see above). */
function anyOf(ctx: FieldContext, values: readonly PresentScalar[], negated: boolean): string {
  const list = [...values];
  const test = `${ctx.column} ${negated ? '<> ALL' : '= ANY'}`;
  // Without a known type the server infers the parameter as an array of the column's type.
  if (ctx.type === null) return `${test}(${ctx.params.add(list, '')})`;
  // An array column: ANY over an array of arrays would compare with their elements, so the
  // values travel as texts and each is cast whole.
  if (ctx.type.category === ARRAY_CATEGORY)
    return `${test}(SELECT v::${ctx.type.castType} FROM unnest(${ctx.params.add(list, '::text[]')}) AS v)`;
  return `${test}(${ctx.params.add(list, `::${ctx.type.castType}[]`)})`;
}

function membership(ctx: FieldContext, list: readonly FilterScalar[], negated: boolean): string {
  return membershipPredicate(
    ctx.column,
    list,
    negated,
    (value) => bind(ctx, value),
    (values) => anyOf(ctx, values, negated),
  );
}

function predicate(ctx: FieldContext, op: FilterOperator, list: readonly FilterScalar[]): string {
  switch (op) {
    case 'eq':
    case 'in':
      return membership(ctx, list, false);
    case 'ne':
    case 'nin':
      return membership(ctx, list, true);
    case 'between':
      return `${ctx.column} BETWEEN ${bind(ctx, list[0])} AND ${bind(ctx, list[1])}`;
    case 'like': {
      // Non-text columns are matched on their text form; the pattern is always text.
      const subject = ctx.isText ? ctx.column : ctx.column + '::text';
      return `${subject} LIKE ${ctx.params.add(list[0], '::text')}`;
    }
    default:
      return `${ctx.column} ${COMPARISON[op]} ${bind(ctx, list[0])}`;
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
  const byName = new Map(columns.map((c) => [c.name, c]));
  const predicates: string[] = [];
  for (const [field, condition] of Object.entries(filters)) {
    const column = byName.get(field);
    const type = column === undefined ? null : postgresColumnType(column);
    // Casting the parameter makes '2024-01-01' compare as a timestamp, '10' as a number, etc.
    // The cast type carries no typmod, so numeric(38,10) or varchar(5) never round or cut it.
    const ctx: FieldContext = {
      column: quoteIdent(field),
      type,
      cast: type === null ? '' : '::' + type.castType,
      isText: type === null || type.category === TEXT_CATEGORY,
      params,
    };
    for (const op of OPERATOR_ORDER) {
      const list = condition[op];
      if (list === undefined || list.length === 0) continue;
      predicates.push(predicate(ctx, op, list));
    }
  }
  return predicates.join(' AND ');
}
