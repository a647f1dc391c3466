import { FetcherError } from '../engine/errors/fetcher-error.js';

/** The result store failed, or holds no object where one was expected. */
export class StorageError extends FetcherError {}
