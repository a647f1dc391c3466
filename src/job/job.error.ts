import { FetcherError } from '../engine/errors/fetcher-error.js';

/** Job requests and job records: invalid data requests, limits, not found, queue failures. */
export class JobError extends FetcherError {}
