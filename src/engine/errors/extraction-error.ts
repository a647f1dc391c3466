import { FetCode } from './fet-code.js';
import { FetcherError, type FetcherErrorOptions } from '../../common/errors/fetcher.error.js';

/** Why a job failed in the worker; its code, message and details become the job's `error`. */
export class ExtractionError extends FetcherError {
  constructor(code: FetCode, message: string, options: FetcherErrorOptions = {}) {
    super(code, message, options);
  }
}
