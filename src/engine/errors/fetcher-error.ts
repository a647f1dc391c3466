import { FET_CATALOGUE, type FetCode } from './fet-code.js';

/**
 * One offending item of a request or a job: which datasource, table, field, and what is wrong.
 * The request language's problems are these, so they reach the envelope as they are.
 */
export interface ErrorDetail {
  readonly type: string;
  readonly datasource?: string;
  readonly table?: string;
  readonly field?: string;
  readonly operator?: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface FetcherErrorOptions {
  /** field path → what is wrong with it (request validation) */
  readonly fields?: Record<string, string>;
  readonly details?: readonly ErrorDetail[];
  /** Extra response headers, e.g. Retry-After. */
  readonly headers?: Record<string, string>;
  /** Extra top-level envelope members, e.g. `reason` of a failed connection test. */
  readonly extra?: Record<string, string | number>;
  readonly cause?: unknown;
}

/**
 * Base of every error that carries a FET code: the engine's own (a refused request, a failed
 * extraction, a result that does not open) and each service module's (DatasourceError, JobError, …).
 * The service's global filter renders any of them as the FET envelope; the engine's callers read
 * `code`. Messages must never carry secrets.
 */
export abstract class FetcherError extends Error {
  readonly fields?: Record<string, string>;
  readonly details?: readonly ErrorDetail[];
  readonly headers?: Record<string, string>;
  readonly extra?: Record<string, string | number>;

  /** Public so that a domain's class needs no constructor of its own; the class itself is abstract. */
  constructor(
    readonly code: FetCode,
    message: string,
    options: FetcherErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.fields = options.fields;
    this.details = options.details;
    this.headers = options.headers;
    this.extra = options.extra;
  }

  get status(): number {
    return FET_CATALOGUE[this.code].status;
  }

  get title(): string {
    return FET_CATALOGUE[this.code].title;
  }
}
