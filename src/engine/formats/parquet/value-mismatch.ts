import { ExtractionError } from '../../errors/engine-errors.js';
import { FetCode } from '../../errors/fet-code.js';

/** What is wrong with one value for its column's Parquet type; the encoder names the table and column. */
export class ValueMismatch extends Error {}

/**
 * A value the column's Parquet type cannot hold as it is (a driver surprise, a NaN in a DECIMAL, a
 * MongoDB field of a type the sample did not show). Nothing is written past it: the job fails with
 * this message rather than carry a changed value. FET-1060, as a request whose fields do not fit the
 * schema: what fixes it is another request (json or csv, or a filter), not a retry; the offender is
 * in `details` (type `value_not_representable`).
 */
export class ParquetValueError extends ExtractionError {
  constructor(
    readonly datasource: string,
    readonly table: string,
    readonly column: string,
    message: string,
  ) {
    super(FetCode.SchemaValidationFailed, message, {
      details: [{ type: 'value_not_representable', datasource, table, field: column, message }],
    });
  }
}
