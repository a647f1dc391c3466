import type { TableReadRequest } from '../connectors/shared/engine-connector.js';
import type { FilterCondition, FilterScalar } from '../request/data-request.js';
import type { CursorKind, CursorRange } from './cursor-range.js';

/** How an engine binds a mark's text in a filter (MongoDB: an ObjectId, a Date, a number); default: the text itself. */
export type MarkBinding = (text: string, kind: CursorKind) => FilterScalar;

/**
 * The read of a range once its upper bound is known: the request's filters ANDed with
 * `cursor > after` (or `cursor >= from`) and `cursor <= upper`, through the engine's own filter
 * building, so each engine binds and compares the bounds as it does any filter of that column.
 * The returned request has no range left: it is an ordinary read.
 */
export function rangeRead(request: TableReadRequest, upper: string, bind: MarkBinding = (text) => text): TableReadRequest {
  const range = request.range as CursorRange;
  const column = range.column.name;
  const existing: FilterCondition = request.filters?.[column] ?? {};
  const condition: FilterCondition = { ...existing, ...lowerBound(range, bind), lte: [bind(upper, range.kind)] };
  const { range: _range, onRangeBound: _listener, ...rest } = request;
  return { ...rest, filters: { ...request.filters, [column]: condition } };
}

/**
 * A range's lower bound as a filter of its cursor: `gt` the mark, `gte` a first run's starting
 * value, undefined when it reads from the start. What the rows' read and each engine's bound query
 * compare with, so both draw the same line.
 */
export function lowerBound(range: CursorRange, bind: MarkBinding = (text) => text): FilterCondition | undefined {
  if (range.after !== undefined) return { gt: [bind(range.after, range.kind)] };
  if (range.from !== undefined) return { gte: [bind(range.from, range.kind)] };
  return undefined;
}
