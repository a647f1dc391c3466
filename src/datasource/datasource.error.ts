import { FetcherError } from '../engine/errors/fetcher-error.js';

/** Connection records and their use: not found, conflicts, product rules, unreachable databases. */
export class DatasourceError extends FetcherError {}
