import { knownQuery } from '../../common/http/list-request.js';
import { invalidQuery, parsePageRequest, type PageRequest } from '../../common/http/pagination.js';
import { FetCode } from '../../engine/errors/fet-code.js';

/** The width of streams.product_name: a longer source can match no stream. */
const MAX_SOURCE_LENGTH = 100;

export interface ListStreamsQuery extends PageRequest {
  /** A product name, trimmed and lower-cased as jobs store `metadata.source`. */
  readonly source?: string;
}

/** `?source=` of a stream route: the product whose stream it is, when the credential does not decide it. */
export interface StreamQuery {
  readonly source?: string;
}

/** `page`, `limit` and `source`; anything else is a 400 naming it (FET-0405), as on every list. */
export function parseListStreamsQuery(raw: Record<string, unknown>): ListStreamsQuery {
  const flat = knownQuery(raw, (key) => key === 'page' || key === 'limit' || key === 'source');
  return { ...parsePageRequest(flat), source: source(flat.source) };
}

export function parseStreamQuery(raw: Record<string, unknown>): StreamQuery {
  return { source: source(knownQuery(raw, (key) => key === 'source').source) };
}

/** As jobs store metadata.source. An empty one is refused: dropping it would mean every product. */
function source(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const name = value.trim().toLowerCase();
  if (name === '') throw invalidQuery(FetCode.InvalidQuery, 'source must be a non-empty product name', ['source']);
  if (name.length > MAX_SOURCE_LENGTH)
    throw invalidQuery(FetCode.InvalidQuery, `source must not exceed ${MAX_SOURCE_LENGTH} characters`, ['source']);
  return name;
}
