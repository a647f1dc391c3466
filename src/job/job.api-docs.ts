import { FetCode } from '../engine/errors/fet-code.js';
import {
  CREDENTIAL_KEY_MISSING,
  EXAMPLE_ID,
  invalidId,
  invalidField,
  JSON_BODY,
  LIST_QUERY,
  missingFields,
  notFound,
  STORE_UNAVAILABLE,
} from '../common/http/api-error-cases.js';
import { mergeErrorAnswers, type ErrorAnswers } from '../common/http/api-error-response.js';
import { JOB_CREATED_MESSAGE, JOB_DUPLICATE_MESSAGE } from './dto/job-response.dto.js';

/**
 * The Swagger answers of the job routes (JobController), each with the messages JobService, the
 * request validator and the list parser really give. Kept here so the controller stays a map of routes.
 */

export const JOB_ACCEPTED_EXAMPLE = {
  jobId: EXAMPLE_ID,
  status: 'pending',
  createdAt: '2026-07-13T09:30:00.000Z',
  message: JOB_CREATED_MESSAGE,
};

/** A duplicate answers the existing job as it is now: here already completed. */
export const JOB_DUPLICATE_EXAMPLE = { ...JOB_ACCEPTED_EXAMPLE, status: 'completed', message: JOB_DUPLICATE_MESSAGE };

const mappedFieldsEmpty = 'mappedFields cannot be empty';
const fieldsOverLimit = "maximum 50 fields allowed per table, got 51 for 'pg_source.accounts'";
const timeoutInvalid = 'dataRequest.limits.timeoutMs must be a positive integer';
const cursorRefused = "'note' (text) cannot be a cursor: use an integer, decimal, date or timestamp column";

export const SUBMIT_ANSWERS: ErrorAnswers = mergeErrorAnswers(JSON_BODY, CREDENTIAL_KEY_MISSING, {
  400: [
    missingFields('dataRequest', 'metadata'),
    [
      FetCode.MissingFields,
      'metadata.source is required for job notification routing',
      { label: 'metadata.source', fields: { 'metadata.source': 'metadata.source is a required field' } },
    ],
    invalidField('dataRequest', 'dataRequest must be an object'),
    [
      FetCode.InvalidDataRequest,
      mappedFieldsEmpty,
      { fields: { 'dataRequest.mappedFields': mappedFieldsEmpty }, details: [{ type: 'invalid_shape', message: mappedFieldsEmpty }] },
    ],
    [
      FetCode.InvalidDataRequest,
      timeoutInvalid,
      {
        label: 'limit value',
        fields: { 'dataRequest.limits.timeoutMs': timeoutInvalid },
        details: [{ type: 'invalid_limit', message: timeoutInvalid }],
      },
    ],
    [
      FetCode.InvalidDataRequest,
      cursorRefused,
      {
        label: 'cursor',
        fields: { 'dataRequest.incremental.cursors.pg_source.accounting.invoices': cursorRefused },
        details: [
          { type: 'cursor_type_refused', datasource: 'pg_source', table: 'accounting.invoices', field: 'note', message: cursorRefused },
        ],
      },
    ],
    [
      FetCode.LimitExceeded,
      fieldsOverLimit,
      {
        fields: { 'dataRequest.mappedFields.pg_source.accounts': fieldsOverLimit },
        details: [{ type: 'limit_exceeded', datasource: 'pg_source', table: 'accounts', message: fieldsOverLimit }],
      },
    ],
    [
      FetCode.MissingDatasource,
      'No connections configured for the requested datasources: pg_source',
      { details: [{ type: 'datasource_not_found', datasource: 'pg_source' }] },
    ],
    [
      FetCode.NotAssigned,
      "Connection 'pg_source' has no product assigned. Use the assign endpoint to assign it first.",
      { details: [{ type: 'not_assigned', datasource: 'pg_source' }] },
    ],
    [
      FetCode.ProductMismatch,
      "Connection 'pg_source' does not belong to the product identified by source 'billing'",
      { details: [{ type: 'product_mismatch', datasource: 'pg_source' }] },
    ],
    [
      FetCode.ConnectionDown,
      "Connection 'pg_source' is not available (auth_failed)",
      {
        details: [
          {
            type: 'connection_down',
            datasource: 'pg_source',
            reason: 'auth_failed',
            message:
              'Cannot connect to PostgreSQL datasource "pg_source": authentication failed: the server rejected the credentials or does not allow this login',
          },
        ],
      },
    ],
    [
      FetCode.ForbiddenHost,
      'Host is not a valid external database endpoint',
      { fields: { host: 'this host is not allowed: loopback, private, link-local and cloud metadata addresses are refused' } },
    ],
  ],
  403: [[FetCode.Forbidden, "metadata.source 'billing' is not a product this credential acts for", { label: 'metadata.source' }]],
  409: [
    [
      FetCode.PasswordRequired,
      "Connection 'pg_source' has no password: it was cleared when the connection's type, host, port, database or SSL settings changed. PATCH a password to use it again.",
      { details: [{ type: 'password_required', datasource: 'pg_source' }] },
    ],
    [FetCode.StreamBusy, `stream 'invoices' has job ${EXAMPLE_ID} processing; wait for it or cancel it`, { extra: { jobId: EXAMPLE_ID } }],
  ],
  // An incremental job's tables and fields are checked at submission, as validate-schema checks them.
  422: [
    [
      FetCode.SchemaValidationFailed,
      'Schema validation found 1 inconsistency.',
      { details: [{ type: 'field_not_found', datasource: 'pg_source', table: 'accounting.invoices', field: 'ammount' }] },
    ],
  ],
  429: [
    [FetCode.RateLimited, 'Job submission limit of 300 per minute reached. Try again in 42 seconds.', { extra: { retryAfterSeconds: 42 } }],
  ],
  503: [
    STORE_UNAVAILABLE,
    [FetCode.ServiceUnavailable, 'the job queue is unavailable; the job was not started, please retry', { label: 'queue' }],
  ],
});

export const LIST_JOBS_ANSWERS: ErrorAnswers = mergeErrorAnswers(LIST_QUERY, {
  400: [
    [
      FetCode.InvalidQuery,
      'status must be one of pending, processing, completed, failed',
      { label: 'status', fields: { status: 'status must be one of pending, processing, completed, failed' } },
    ],
  ],
  503: [STORE_UNAVAILABLE],
});

export const GET_JOB_ANSWERS: ErrorAnswers = mergeErrorAnswers(invalidId('job'), notFound('job'), { 503: [STORE_UNAVAILABLE] });

export const CANCEL_ANSWERS: ErrorAnswers = mergeErrorAnswers(invalidId('job'), notFound('job'), {
  409: [[FetCode.JobAlreadyFinished, `job ${EXAMPLE_ID} is already completed; only a pending or processing job can be cancelled`]],
  503: [
    STORE_UNAVAILABLE,
    [FetCode.ServiceUnavailable, `job ${EXAMPLE_ID} changed while being cancelled; retrying is safe`, { label: 'raced' }],
  ],
});
