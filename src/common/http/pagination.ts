import { FetCode } from '../../engine/errors/fet-code.js';
import { RequestValidationError } from '../errors/request-errors.js';

export const MAX_PAGE_LIMIT = 100;
/** Far past any real list; `page=1e20` made the offset a float the store refused, a 500 (docs/request-limits.md). */
export const MAX_PAGE = 1_000_000;

export interface PageRequest {
  readonly page: number;
  readonly limit: number;
}

/** `page` (default 1) and `limit` (default 10, at most 100) of a list route's query string. */
export function parsePageRequest(flat: Readonly<Record<string, string | undefined>>): PageRequest {
  const page = positiveInt(flat.page, 'page', 1);
  if (page > MAX_PAGE) throw invalidQuery(FetCode.InvalidQuery, `page must not exceed ${MAX_PAGE}`, ['page']);
  const limit = positiveInt(flat.limit, 'limit', 10);
  if (limit > MAX_PAGE_LIMIT) {
    throw invalidQuery(
      FetCode.PageLimitExceeded,
      `The pagination limit exceeds the maximum allowed of ${MAX_PAGE_LIMIT} items per page. Please verify the limit and try again.`,
      ['limit'],
    );
  }
  return { page, limit };
}

export function invalidQuery(code: FetCode, message: string, names: readonly string[]): RequestValidationError {
  return new RequestValidationError(code, message, { fields: Object.fromEntries(names.map((name) => [name, message])) });
}

/** `?metadata.team=x` arrives flat or nested depending on the query parser; repeated keys are refused. */
export function flatQuery(raw: Record<string, unknown>, prefix = ''): Record<string, string> {
  // Null prototype: `?__proto__=x` must stay a parameter (and be refused as unknown), not vanish.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(raw)) {
    const name = prefix + key;
    if (typeof value === 'string') out[name] = value;
    else if (value && typeof value === 'object' && !Array.isArray(value))
      Object.assign(out, flatQuery(value as Record<string, unknown>, `${name}.`));
    else throw invalidQuery(FetCode.InvalidQuery, `query parameter ${name} must be given once`, [name]);
  }
  return out;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `YYYY-MM-DD` query parameter as that UTC day's start; a real calendar date, empty meaning absent. */
export function parseDay(value: string | undefined, name: string): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const match = DATE.exec(value);
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : undefined;
  if (!date || date.toISOString().slice(0, 10) !== value)
    throw invalidQuery(FetCode.InvalidDate, `${name} must be a date as YYYY-MM-DD`, [name]);
  return date;
}

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw invalidQuery(FetCode.InvalidQuery, `${name} must be an integer greater than 0`, [name]);
  return Number(value);
}
