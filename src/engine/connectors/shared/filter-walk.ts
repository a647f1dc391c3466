import type { FilterCondition, FilterOperator, FilterScalar } from '../../request/data-request.js';
import type { ColumnInfo } from './engine-connector.js';

/** A field's operators are rendered in this order, so the same filters always give the same statement. */
export const OPERATOR_ORDER: readonly FilterOperator[] = ['eq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'ne', 'like'];

export type ComparisonOperator = 'gt' | 'gte' | 'lt' | 'lte';

/**
 * How an engine renders the operators of one field, by the form they take. Values are as the
 * request gives them: a list may hold nulls, and a null bound or pattern matches nothing.
 */
export interface FieldClauses<C> {
  /** `eq`/`in` (negated: `ne`/`nin`) over a list that may hold nulls. */
  membership(values: readonly FilterScalar[], negated: boolean): C;
  comparison(operator: ComparisonOperator, value: FilterScalar): C;
  /** Inclusive at both ends. */
  between(low: FilterScalar, high: FilterScalar): C;
  like(pattern: FilterScalar): C;
}

function clause<C>(field: FieldClauses<C>, operator: FilterOperator, values: readonly FilterScalar[]): C {
  switch (operator) {
    case 'eq':
    case 'in':
      return field.membership(values, false);
    case 'ne':
    case 'nin':
      return field.membership(values, true);
    case 'between':
      return field.between(values[0], values[1]);
    case 'like':
      return field.like(values[0]);
    default:
      return field.comparison(operator, values[0]);
  }
}

/**
 * Walks one table's filters (field → operator → values) as every engine reads them: fields in the
 * order given, each field's operators that have values in OPERATOR_ORDER. `forField` is called once
 * per field with its column among `columns` (undefined when it has none, i.e. no type is known) and
 * returns how that field's operators are rendered, or undefined to skip the field. Returns every
 * field walked with its clauses, in order.
 */
export function walkFilters<C>(
  filters: Readonly<Record<string, FilterCondition>>,
  columns: readonly ColumnInfo[],
  forField: (field: string, column: ColumnInfo | undefined) => FieldClauses<C> | undefined,
): [field: string, clauses: C[]][] {
  const byName = new Map(columns.map((c) => [c.name, c]));
  const fields: [string, C[]][] = [];
  for (const [field, condition] of Object.entries(filters)) {
    const renderer = forField(field, byName.get(field));
    if (renderer === undefined) continue;
    const clauses: C[] = [];
    for (const operator of OPERATOR_ORDER) {
      const values = condition[operator];
      if (values !== undefined && values.length > 0) clauses.push(clause(renderer, operator, values));
    }
    fields.push([field, clauses]);
  }
  return fields;
}
