import { FetCode } from '../../engine/errors/fet-code.js';
import { knownQuery, parseListRequest, type ListRequest } from '../../common/http/list-request.js';
import { invalidQuery as invalid } from '../../common/http/pagination.js';
import { DATASOURCE_TYPES, DatasourceType } from '../../engine/connectors/datasource-type.js';

const METADATA_KEY = /^[A-Za-z0-9_-]{1,64}$/;

export interface ListConnectionsQuery extends ListRequest {
  readonly type?: DatasourceType;
  readonly host?: string;
  readonly databaseName?: string;
  readonly metadata: Record<string, string>;
}

const KNOWN = new Set(['page', 'limit', 'sortOrder', 'type', 'host', 'databaseName', 'startDate', 'endDate']);

/**
 * Parses the list query string. Every parameter has a defined answer: a typo is a 400 naming it
 * (FET-0405), not a silently ignored filter.
 */
export function parseListQuery(raw: Record<string, unknown>): ListConnectionsQuery {
  const flat = knownQuery(raw, (key) => KNOWN.has(key) || key.startsWith('metadata.'));
  return {
    ...parseListRequest(flat, 'type', DATASOURCE_TYPES),
    host: flat.host,
    databaseName: flat.databaseName,
    metadata: metadataFilter(flat),
  };
}

/** `metadata.<key>=<value>` parameters: connections whose metadata has every one of them. */
function metadataFilter(flat: Record<string, string>): Record<string, string> {
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
  return metadata;
}
