import type { FilterCondition } from '../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { walkFilters } from '../shared/filter-walk.js';
import type { SqlColumnFilter } from './sql-column-filter.js';

/**
 * Filters → the predicate of one WHERE clause, '' when no filter applies: every field and operator
 * ANDed, in the walk's fixed order (shared/filter-walk.ts) so the SQL is deterministic, with the
 * semantics every SQL engine shares (SqlColumnFilter). `forColumn` makes the engine's filter of a
 * field (`column` undefined: no type known); it binds the values as the predicate is composed,
 * left to right.
 */
export function buildSqlWhere(
  filters: Readonly<Record<string, FilterCondition>>,
  columns: readonly ColumnInfo[],
  forColumn: (field: string, column: ColumnInfo | undefined) => SqlColumnFilter,
): string {
  return walkFilters(filters, columns, forColumn)
    .flatMap(([, predicates]) => predicates)
    .join(' AND ');
}
