import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError } from '../engine/errors/fetcher-error.js';

/** Connection records and their use: not found, conflicts, product rules, unreachable databases. */
export class DatasourceError extends FetcherError {}

/** 404 FET-1001 with the original's wording (docs/compatibility.md#error-codes). */
export function notFound(entity: 'connection' | 'job' | 'api key' = 'connection'): DatasourceError {
  return new DatasourceError(
    FetCode.NotFound,
    `It was not possible to find the ${entity} entity during the requested flow. Please review the data provided in the request.`,
  );
}
