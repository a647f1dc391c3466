import { FetCode } from '../../engine/errors/fet-code.js';
import { FetcherError } from '../../engine/errors/fetcher-error.js';

/** A record the caller named does not exist, or belongs to another product: the two answer alike. */
export class NotFoundError extends FetcherError {}

/** 404 FET-1001 with the original's wording (docs/compatibility.md#error-codes), for any record kind that keeps it. */
export function entityNotFound(entity: 'connection' | 'job' | 'api key'): NotFoundError {
  return new NotFoundError(
    FetCode.NotFound,
    `It was not possible to find the ${entity} entity during the requested flow. Please review the data provided in the request.`,
  );
}
