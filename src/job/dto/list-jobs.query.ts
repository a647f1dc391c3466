import { FetCode } from '../../engine/errors/fet-code.js';
import { knownQuery, parseListRequest, type ListRequest } from '../../common/http/list-request.js';
import { invalidQuery as invalid } from '../../common/http/pagination.js';
import { JobStatus } from '../job-status.js';

const STATUSES: readonly JobStatus[] = Object.values(JobStatus);
/** The width of jobs.product_name: a longer source can match no job. */
const MAX_SOURCE_LENGTH = 100;

export interface ListJobsQuery extends ListRequest {
  readonly status?: JobStatus;
  /** A product name, trimmed and lower-cased as jobs store it. */
  readonly source?: string;
}

export const LIST_JOBS_PARAMETERS = ['page', 'limit', 'sortOrder', 'status', 'source', 'startDate', 'endDate'] as const;
const KNOWN = new Set<string>(LIST_JOBS_PARAMETERS);

/**
 * Parses the job list query string with the connection list's rules and codes: a typo or a
 * repeated parameter is a 400 naming it (FET-0405), never a silently ignored filter that would
 * widen the list.
 */
export function parseListJobsQuery(raw: Record<string, unknown>): ListJobsQuery {
  const flat = knownQuery(raw, (key) => KNOWN.has(key));
  return { ...parseListRequest(flat, 'status', STATUSES), source: source(flat.source) };
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
