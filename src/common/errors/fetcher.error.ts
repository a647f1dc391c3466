import type { RequestProblem } from '../../engine/request/data-request.error.js';
import { FET_CATALOGUE, FetCode } from '../../engine/errors/fet-code.js';

/**
 * One offending item of a request or a job: which datasource, table, field, and what is wrong.
 * The request language's own problems are these, so they reach the envelope as they are.
 */
export type ErrorDetail = RequestProblem;

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
 * Base of every domain error. Each module derives its own class (DatasourceError, JobError, …);
 * the global filter renders any of them as the FET envelope. Messages must never carry secrets.
 */
export abstract class FetcherError extends Error {
  readonly fields?: Record<string, string>;
  readonly details?: readonly ErrorDetail[];
  readonly headers?: Record<string, string>;
  readonly extra?: Record<string, string | number>;

  protected constructor(
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

/** A request the API refuses before any domain logic: body, header, path or query problems. */
export class RequestValidationError extends FetcherError {
  constructor(code: FetCode, message: string, options: FetcherErrorOptions = {}) {
    super(code, message, options);
  }
}

/** Infrastructure the request needs is not available right now (database, queue, storage). */
export class ServiceUnavailableError extends FetcherError {
  constructor(message: string, options: FetcherErrorOptions = {}) {
    super(FetCode.ServiceUnavailable, message, options);
  }
}
