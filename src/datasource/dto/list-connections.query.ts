import { FetCode } from '../../common/errors/fet-code.js';
import { RequestValidationError } from '../../common/errors/fetcher.error.js';
import { DATASOURCE_TYPES, DatasourceType } from '../datasource-type.js';

export const MAX_PAGE_LIMIT = 100;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const METADATA_KEY = /^[A-Za-z0-9_-]{1,64}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ListConnectionsQuery {
  readonly page: number;
  readonly limit: number;
  readonly order: 'ASC' | 'DESC';
  readonly type?: DatasourceType;
  readonly host?: string;
  readonly databaseName?: string;
  readonly createdFrom?: Date;
  readonly createdBefore?: Date;
  readonly metadata: Record<string, string>;
}

const KNOWN = new Set(['page', 'limit', 'sortOrder', 'type', 'host', 'databaseName', 'startDate', 'endDate']);

/**
 * Parses the list query string. Every parameter has a defined answer: a typo is a 400 naming it
 * (FET-0405), not a silently ignored filter.
 */
export function parseListQuery(raw: Record<string, unknown>): ListConnectionsQuery {
  const flat = flatten(raw);
  const unknown = Object.keys(flat).filter((key) => !KNOWN.has(key) && !key.startsWith('metadata.'));
  if (unknown.length > 0) throw invalid(FetCode.InvalidQuery, `unknown query parameter(s): ${unknown.join(', ')}`, unknown);

  const page = positiveInt(flat.page, 'page', 1);
  const limit = positiveInt(flat.limit, 'limit', 10);
  if (limit > MAX_PAGE_LIMIT) {
    throw invalid(FetCode.PageLimitExceeded, `The pagination limit exceeds the maximum allowed of ${MAX_PAGE_LIMIT} items per page. Please verify the limit and try again.`, ['limit']);
  }
  const sortOrder = (flat.sortOrder ?? 'desc').toLowerCase();
  if (sortOrder !== 'asc' && sortOrder !== 'desc') throw invalid(FetCode.InvalidSortOrder, "sortOrder must be 'asc' or 'desc'", ['sortOrder']);
  const type = flat.type;
  if (type !== undefined && !DATASOURCE_TYPES.includes(type as DatasourceType)) {
    throw invalid(FetCode.InvalidQuery, `type must be one of ${DATASOURCE_TYPES.join(', ')}`, ['type']);
  }
  const createdFrom = day(flat.startDate, 'startDate');
  const endDay = day(flat.endDate, 'endDate');
  const createdBefore = endDay && new Date(endDay.getTime() + DAY_MS);
  if (createdFrom && endDay && endDay < createdFrom) throw invalid(FetCode.InvalidDateRange, 'endDate cannot be earlier than startDate', ['endDate']);

  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(flat)) {
    if (!key.startsWith('metadata.')) continue;
    const name = key.slice('metadata.'.length);
    if (!METADATA_KEY.test(name)) throw invalid(FetCode.InvalidQuery, `metadata filter keys must be 1-64 characters of [A-Za-z0-9_-]`, [key]);
    metadata[name] = value;
  }
  return {
    page,
    limit,
    order: sortOrder === 'asc' ? 'ASC' : 'DESC',
    type: type as DatasourceType | undefined,
    host: flat.host,
    databaseName: flat.databaseName,
    createdFrom,
    createdBefore,
    metadata,
  };
}

/** `?metadata.team=x` arrives flat or nested depending on the query parser; repeated keys are refused. */
function flatten(raw: Record<string, unknown>, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const name = prefix + key;
    if (typeof value === 'string') out[name] = value;
    else if (value && typeof value === 'object' && !Array.isArray(value)) Object.assign(out, flatten(value as Record<string, unknown>, `${name}.`));
    else throw invalid(FetCode.InvalidQuery, `query parameter ${name} must be given once`, [name]);
  }
  return out;
}

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw invalid(FetCode.InvalidQuery, `${name} must be an integer greater than 0`, [name]);
  return Number(value);
}

function day(value: string | undefined, name: string): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const match = DATE.exec(value);
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : undefined;
  if (!date || date.toISOString().slice(0, 10) !== value) throw invalid(FetCode.InvalidDate, `${name} must be a date as YYYY-MM-DD`, [name]);
  return date;
}

function invalid(code: FetCode, message: string, names: string[]): RequestValidationError {
  return new RequestValidationError(code, message, { fields: Object.fromEntries(names.map((name) => [name, message])) });
}
