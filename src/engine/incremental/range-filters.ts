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
  let lower: FilterCondition = {};
  if (range.after !== undefined) lower = { gt: [bind(range.after, range.kind)] };
  else if (range.from !== undefined) lower = { gte: [bind(range.from, range.kind)] };
  const condition: FilterCondition = { ...existing, ...lower, lte: [bind(upper, range.kind)] };
  const { range: _range, onRangeBound: _listener, ...rest } = request;
  return { ...rest, filters: { ...request.filters, [column]: condition } };
}
