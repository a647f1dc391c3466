import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError, type FetcherErrorOptions } from '../common/errors/fetcher.error.js';

/** Job requests and job records: invalid data requests, limits, not found, queue failures. */
export class JobError extends FetcherError {
  constructor(code: FetCode, message: string, options: FetcherErrorOptions = {}) {
    super(code, message, options);
  }
}
