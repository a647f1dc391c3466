/** What is wrong with one value for its column's Parquet type; the encoder names the table and column. */
export class ValueMismatch extends Error {}

/**
 * A value the column's Parquet type cannot hold as it is (a driver surprise, a NaN in a DECIMAL, a
 * MongoDB field of a type the sample did not show). Nothing is written past it: the job fails with
 * this message rather than carry a changed value.
 */
export class ParquetValueError extends Error {
  override readonly name = 'ParquetValueError';

  constructor(
    readonly datasource: string,
    readonly table: string,
    readonly column: string,
    message: string,
  ) {
    super(message);
  }
}
