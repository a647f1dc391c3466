import { FetCode } from '../../common/errors/fet-code.js';
import { flatQuery as flatten, invalidQuery as invalid, parseDay, parsePageRequest } from '../../common/http/pagination.js';
import { DATASOURCE_TYPES, DatasourceType } from '../../datasource/datasource-type.js';
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

  const { page, limit } = parsePageRequest(flat);
  const sortOrder = (flat.sortOrder ?? 'desc').toLowerCase();
  if (sortOrder !== 'asc' && sortOrder !== 'desc')
    throw invalid(FetCode.InvalidSortOrder, "sortOrder must be 'asc' or 'desc'", ['sortOrder']);
  const type = flat.type;
  if (type !== undefined && !DATASOURCE_TYPES.includes(type as DatasourceType)) {
    throw invalid(FetCode.InvalidQuery, `type must be one of ${DATASOURCE_TYPES.join(', ')}`, ['type']);
  }
  const createdFrom = parseDay(flat.startDate, 'startDate');
  const endDay = parseDay(flat.endDate, 'endDate');
  const createdBefore = endDay && new Date(endDay.getTime() + DAY_MS);
  if (createdFrom && endDay && endDay < createdFrom)
    throw invalid(FetCode.InvalidDateRange, 'endDate cannot be earlier than startDate', ['endDate']);

  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(flat)) {
    if (!key.startsWith('metadata.')) continue;
    const name = key.slice('metadata.'.length);
    // `__proto__` is refused as a body member too, so no connection can have it; assigned below it would drop the filter.
    if (!METADATA_KEY.test(name) || name === '__proto__') {
      throw invalid(FetCode.InvalidQuery, `metadata filter keys must be 1-64 characters of [A-Za-z0-9_-], other than __proto__`, [key]);
    }
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
