/** One offending item of a data request: which datasource, table, field, and what is wrong. */
export interface RequestProblem {
  readonly type: string;
  readonly datasource?: string;
  readonly table?: string;
  readonly field?: string;
  readonly operator?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** `limit_exceeded` when every problem is a count over its limit, `invalid` otherwise. */
export type DataRequestErrorKind = 'invalid' | 'limit_exceeded';

/**
 * A data request that fails its checks. The request language knows nothing of HTTP: the job
 * module turns this into its FET code (docs/api.md) where it meets a caller.
 */
export class DataRequestError extends Error {
  constructor(
    readonly kind: DataRequestErrorKind,
    message: string,
    /** field path → what is wrong with it */
    readonly fields: Readonly<Record<string, string>>,
    readonly problems: readonly RequestProblem[],
  ) {
    super(message);
    this.name = 'DataRequestError';
  }
}
