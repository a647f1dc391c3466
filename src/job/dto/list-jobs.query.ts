import { FetCode } from '../../common/errors/fet-code.js';
import { flatQuery, invalidQuery as invalid, parseDay, parsePageRequest } from '../../common/http/pagination.js';
import { JobStatus } from '../job-status.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const STATUSES: readonly string[] = Object.values(JobStatus);
/** The width of jobs.product_name: a longer source can match no job. */
const MAX_SOURCE_LENGTH = 100;

export interface ListJobsQuery {
  readonly page: number;
  readonly limit: number;
  /** On createdAt, then id. */
  readonly order: 'ASC' | 'DESC';
  readonly status?: JobStatus;
  /** A product name, trimmed and lower-cased as jobs store it. */
  readonly source?: string;
  /** created_at ≥ this */
  readonly createdFrom?: Date;
  /** created_at < this (the day after endDate) */
  readonly createdBefore?: Date;
}

export const LIST_JOBS_PARAMETERS = ['page', 'limit', 'sortOrder', 'status', 'source', 'startDate', 'endDate'] as const;
const KNOWN = new Set<string>(LIST_JOBS_PARAMETERS);

/**
 * Parses the job list query string with the connection list's rules and codes: a typo or a
 * repeated parameter is a 400 naming it (FET-0405), never a silently ignored filter that would
 * widen the list.
 */
export function parseListJobsQuery(raw: Record<string, unknown>): ListJobsQuery {
  const flat = flatQuery(raw);
  const unknown = Object.keys(flat).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) throw invalid(FetCode.InvalidQuery, `unknown query parameter(s): ${unknown.join(', ')}`, unknown);

  const { page, limit } = parsePageRequest(flat);
  const sortOrder = (flat.sortOrder ?? 'desc').toLowerCase();
  if (sortOrder !== 'asc' && sortOrder !== 'desc')
    throw invalid(FetCode.InvalidSortOrder, "sortOrder must be 'asc' or 'desc'", ['sortOrder']);
  const status = flat.status;
  if (status !== undefined && !STATUSES.includes(status))
    throw invalid(FetCode.InvalidQuery, `status must be one of ${STATUSES.join(', ')}`, ['status']);
  const createdFrom = parseDay(flat.startDate, 'startDate');
  const endDay = parseDay(flat.endDate, 'endDate');
  if (createdFrom && endDay && endDay < createdFrom)
    throw invalid(FetCode.InvalidDateRange, 'endDate cannot be earlier than startDate', ['endDate']);

  return {
    page,
    limit,
    order: sortOrder === 'asc' ? 'ASC' : 'DESC',
    status: status as JobStatus | undefined,
    source: source(flat.source),
    createdFrom,
    createdBefore: endDay && new Date(endDay.getTime() + DAY_MS),
  };
}

/** As JobService stores metadata.source. An empty one is refused: dropping it would list every product. */
function source(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const name = value.trim().toLowerCase();
  if (name === '') throw invalid(FetCode.InvalidQuery, 'source must be a non-empty product name', ['source']);
  if (name.length > MAX_SOURCE_LENGTH)
    throw invalid(FetCode.InvalidQuery, `source must not exceed ${MAX_SOURCE_LENGTH} characters`, ['source']);
  return name;
}
