import { FetCode } from '../errors/fet-code.js';
import { FetcherError, type ErrorDetail } from '../errors/fetcher-error.js';

/** One offending item of a data request: which datasource, table, field, and what is wrong. */
export type RequestProblem = ErrorDetail;

/** `limit_exceeded` when every problem is a count over its limit, `invalid` otherwise. */
export type DataRequestErrorKind = 'invalid' | 'limit_exceeded';

/**
 * A data request that fails its checks: FET-1061 when only count limits are exceeded, FET-0401
 * otherwise, every problem in `details` and each offending member by its JSON path in `fields`
 * (`dataRequest.mappedFields.…`: the path in a job's body).
 */
export class DataRequestError extends FetcherError {
  constructor(
    readonly kind: DataRequestErrorKind,
    message: string,
    fields: Readonly<Record<string, string>>,
    readonly problems: readonly RequestProblem[],
  ) {
    super(kind === 'limit_exceeded' ? FetCode.LimitExceeded : FetCode.InvalidDataRequest, message, {
      fields: { ...fields },
      details: problems,
    });
  }
}
