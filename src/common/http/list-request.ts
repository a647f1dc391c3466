import { FetCode } from '../../engine/errors/fet-code.js';
import { flatQuery, invalidQuery, parseDay, parsePageRequest, type PageRequest } from './pagination.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a list route ordered by creation takes besides its own filters. */
export interface ListRequest extends PageRequest {
  /** On createdAt, then id. */
  readonly order: 'ASC' | 'DESC';
  /** created_at ≥ this */
  readonly createdFrom?: Date;
  /** created_at < this (the day after endDate) */
  readonly createdBefore?: Date;
}

/**
 * The query string flattened (see flatQuery). A parameter `isKnown` refuses is a 400 naming it
 * (FET-0405), never a silently ignored filter that would widen the list.
 */
export function knownQuery(raw: Record<string, unknown>, isKnown: (name: string) => boolean): Record<string, string> {
  const flat = flatQuery(raw);
  const unknown = Object.keys(flat).filter((name) => !isKnown(name));
  if (unknown.length > 0) throw invalidQuery(FetCode.InvalidQuery, `unknown query parameter(s): ${unknown.join(', ')}`, unknown);
  return flat;
}

/**
 * `page` and `limit`; `sortOrder`, asc or desc in any case (desc by default); the list's filter
 * `name`, one of `values`; `startDate` and `endDate` as YYYY-MM-DD, both days included. Checked in
 * that order: a query with several faults is answered for the first.
 */
export function parseListRequest<N extends string, V extends string>(
  flat: Readonly<Record<string, string | undefined>>,
  name: N,
  values: readonly V[],
): ListRequest & { readonly [K in N]?: V } {
  const { page, limit } = parsePageRequest(flat);
  const sortOrder = (flat.sortOrder ?? 'desc').toLowerCase();
  if (sortOrder !== 'asc' && sortOrder !== 'desc')
    throw invalidQuery(FetCode.InvalidSortOrder, "sortOrder must be 'asc' or 'desc'", ['sortOrder']);
  const value = flat[name];
  if (value !== undefined && !values.includes(value as V))
    throw invalidQuery(FetCode.InvalidQuery, `${name} must be one of ${values.join(', ')}`, [name]);
  const createdFrom = parseDay(flat.startDate, 'startDate');
  const endDay = parseDay(flat.endDate, 'endDate');
  if (createdFrom && endDay && endDay < createdFrom)
    throw invalidQuery(FetCode.InvalidDateRange, 'endDate cannot be earlier than startDate', ['endDate']);
  const createdBefore = endDay && new Date(endDay.getTime() + DAY_MS);
  const order = sortOrder === 'asc' ? 'ASC' : 'DESC';
  return { page, limit, order, [name]: value, createdFrom, createdBefore } as ListRequest & { readonly [K in N]?: V };
}
