import { FetCode } from '../../engine/errors/fet-code.js';
import { flatQuery, invalidQuery } from '../../common/http/pagination.js';

export interface ResultDownloadQuery {
  /** Send the sealed object as stored instead of the verified plaintext. */
  readonly raw: boolean;
}

const KNOWN = new Set(['raw']);

/** `?raw=true|false` and nothing else: a typo is a 400 naming it (FET-0405), never a silent default. */
export function parseResultDownloadQuery(query: Record<string, unknown>): ResultDownloadQuery {
  const flat = flatQuery(query);
  const unknown = Object.keys(flat).filter((name) => !KNOWN.has(name));
  if (unknown.length > 0) throw invalidQuery(FetCode.InvalidQuery, `unknown query parameter(s): ${unknown.join(', ')}`, unknown);
  const raw = flat.raw;
  if (raw !== undefined && raw !== 'true' && raw !== 'false')
    throw invalidQuery(FetCode.InvalidQuery, "raw must be 'true' or 'false'", ['raw']);
  return { raw: raw === 'true' };
}
