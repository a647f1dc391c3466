import { DataRequestError } from '../engine/request/data-request.error.js';
import { validateDataRequest } from '../engine/request/data-request.validator.js';
import type { DataRequestInput, ExtractionCeilings } from '../engine/request/data-request.js';
import { JobError } from './job.error.js';

/** Where the data request sits in the caller's body: a job's `dataRequest`, or the body itself (validate-schema). */
export type DataRequestPlace = 'dataRequest' | 'body';

/**
 * Validates a data request where it meets a caller or a job: FET-1061 when only count limits are
 * exceeded, FET-0401 otherwise, with every problem in `details`. `fields` names each offending
 * member by its JSON path in the caller's body (docs/api.md, "The envelope").
 */
export function checkDataRequest(request: DataRequestInput, ceilings: ExtractionCeilings, place: DataRequestPlace = 'dataRequest'): void {
  try {
    validateDataRequest(request, ceilings);
  } catch (error) {
    if (!(error instanceof DataRequestError) || place === 'dataRequest') throw error;
    throw new JobError(error.code, error.message, { fields: withoutDataRequestPrefix(error.fields ?? {}), details: error.problems });
  }
}

function withoutDataRequestPrefix(fields: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([path, message]) => [path.replace(/^dataRequest\./, ''), message]));
}
