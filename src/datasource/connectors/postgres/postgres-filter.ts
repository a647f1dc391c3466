import type { FilterCondition, FilterOperator, FilterScalar } from '../../../job/data-request.js';
import type { ColumnInfo } from '../engine-connector.js';
import { quoteIdent } from './postgres-identifier.js';
import { postgresColumnType } from './postgres-types.js';
import { membershipPredicate } from '../sql-membership.js';

/**
 * Filters → one WHERE clause (SPEC §4.3). Every field and operator is ANDed; operators of one
 * field are emitted in a fixed order so the SQL is deterministic.
 *
 * NULL inside a value list is treated as a value, not as an unknown:
 * - `eq`/`in` [1, null]  → `(c IN (1) OR c IS NULL)`: matches 1 or NULL.
 * - `ne`/`nin` [1, null] → `(c NOT IN (1) AND c IS NOT NULL)`: matches neither.
 * Without a null in the list, `ne`/`nin` keep plain SQL semantics: NULL rows never match `<>` or
 * NOT IN (as in the original). A null in `gt gte lt lte between like` is bound as NULL and so
 * matches nothing, which is what the SQL comparison means.
 */
const OPERATOR_ORDER: readonly FilterOperator[] = ['eq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'ne', 'like'];

const COMPARISON: Partial<Record<FilterOperator, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** String-category types compare with LIKE natively (and keep their collation, e.g. citext). */
const TEXT_CATEGORY = 'S';

interface FieldContext {
  readonly column: string;
  readonly cast: string;
  readonly isText: boolean;
  readonly values: unknown[];
}

function bind(ctx: FieldContext, value: FilterScalar): string {
  ctx.values.push(value);
  return '$' + ctx.values.length + ctx.cast;
}

function membership(ctx: FieldContext, list: readonly FilterScalar[], negated: boolean): string {
  return membershipPredicate(ctx.column, list, negated, (value) => bind(ctx, value));
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
      ctx.values.push(list[0]);
      return `${subject} LIKE $${ctx.values.length}::text`;
    }
    default:
      return `${ctx.column} ${COMPARISON[op]} ${bind(ctx, list[0])}`;
  }
}

/**
 * Appends the bound values to `values` (placeholders continue its numbering) and returns the
 * predicate text, '' when no filter applies. `columns` are the table's columns, for types.
 */
export function buildWhere(
  filters: Readonly<Record<string, FilterCondition>>,
  columns: readonly ColumnInfo[],
  values: unknown[],
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
      cast: type === null ? '' : '::' + type.castType,
      isText: type === null || type.category === TEXT_CATEGORY,
      values,
    };
    for (const op of OPERATOR_ORDER) {
      const list = condition[op];
      if (list === undefined || list.length === 0) continue;
      predicates.push(predicate(ctx, op, list));
    }
  }
  return predicates.join(' AND ');
}
