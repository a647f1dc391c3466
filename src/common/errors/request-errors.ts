import { FetCode } from '../../engine/errors/fet-code.js';
import { FetcherError, type FetcherErrorOptions } from '../../engine/errors/fetcher-error.js';

/** A request the API refuses before any domain logic: body, header, path or query problems. */
export class RequestValidationError extends FetcherError {}

/** Infrastructure the request needs is not available right now (database, queue, storage). */
export class ServiceUnavailableError extends FetcherError {
  constructor(message: string, options: FetcherErrorOptions = {}) {
    super(FetCode.ServiceUnavailable, message, options);
  }
}
