import { FetCode } from '../common/errors/fet-code.js';
import { DataRequestError } from '../request/data-request.error.js';
import { validateDataRequest } from '../request/data-request.validator.js';
import type { DataRequestInput, ExtractionCeilings } from '../request/data-request.js';
import { JobError } from './job.error.js';

/**
 * Validates a data request where it meets a caller or a job: FET-1061 when only count limits are
 * exceeded, FET-0401 otherwise, with every problem in `details`.
 */
export function checkDataRequest(request: DataRequestInput, ceilings: ExtractionCeilings): void {
  try {
    validateDataRequest(request, ceilings);
  } catch (error) {
    if (!(error instanceof DataRequestError)) throw error;
    const code = error.kind === 'limit_exceeded' ? FetCode.LimitExceeded : FetCode.InvalidDataRequest;
    throw new JobError(code, error.message, { fields: { ...error.fields }, details: error.problems });
  }
}
