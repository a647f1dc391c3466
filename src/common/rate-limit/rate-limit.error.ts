import { FetCode } from '../../engine/errors/fet-code.js';
import { FetcherError } from '../../engine/errors/fetcher-error.js';

/** 429 FET-1070 with Retry-After, whatever was limited. */
export class RateLimitError extends FetcherError {
  constructor(what: string, limit: number, retryAfterSeconds: number) {
    super(FetCode.RateLimited, `${what} limit of ${limit} per minute reached. Try again in ${retryAfterSeconds} seconds.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
      extra: { retryAfterSeconds },
    });
  }
}
