import { EXAMPLE_ID, JSON_BODY, LIST_QUERY, missingFields, notFound, STORE_UNAVAILABLE } from '../common/http/api-error-cases.js';
import { mergeErrorAnswers, type ErrorAnswers, type ErrorCase } from '../common/http/api-error-response.js';
import { FetCode } from '../engine/errors/fet-code.js';

/**
 * The Swagger answers of the stream routes (StreamController), with the messages StreamService,
 * the name pipe and the query parsers really give.
 */

const field = (code: FetCode, message: string, path: string, label?: string): ErrorCase => [
  code,
  message,
  { label, fields: { [path]: message } },
];

const SOURCE_REQUIRED = field(
  FetCode.InvalidQuery,
  'source is required: name the product whose stream this is (?source=<product>)',
  'source',
  'source required',
);
const INVALID_NAME: ErrorCase = [FetCode.InvalidPathId, 'invalid stream name: a stream name has at most 128 characters, got 129'];
const UNKNOWN_PARAMETER = field(FetCode.InvalidQuery, 'unknown query parameter(s): sourse', 'sourse', 'unknown parameter');
const BUSY: ErrorCase = [
  FetCode.StreamBusy,
  `stream 'invoices' has job ${EXAMPLE_ID} processing; wait for it or cancel it`,
  { extra: { jobId: EXAMPLE_ID } },
];

/** A stream route: its name, its `?source=`, and the stream itself. */
const BY_NAME: ErrorAnswers = mergeErrorAnswers(notFound('stream'), {
  400: [INVALID_NAME, SOURCE_REQUIRED, UNKNOWN_PARAMETER],
  503: [STORE_UNAVAILABLE],
});

// The list takes page, limit and source only: none of the date and order refusals of the other lists.
const PAGE_REFUSALS = (LIST_QUERY[400] ?? []).filter(([code]) => code === FetCode.InvalidQuery || code === FetCode.PageLimitExceeded);

export const LIST_STREAMS_ANSWERS: ErrorAnswers = {
  400: [...PAGE_REFUSALS, field(FetCode.InvalidQuery, 'source must be a non-empty product name', 'source', 'source')],
  503: [STORE_UNAVAILABLE],
};

export const GET_STREAM_ANSWERS: ErrorAnswers = BY_NAME;

const markInvalid = "a mark's type is one of integer, decimal, date, timestamp, timestamptz, objectid";

export const PUT_MARKS_ANSWERS: ErrorAnswers = mergeErrorAnswers(JSON_BODY, BY_NAME, {
  400: [
    missingFields('marks'),
    [
      FetCode.InvalidDataRequest,
      `marks.pg_source.accounting.invoices: ${markInvalid}`,
      { label: 'marks', fields: { 'marks.pg_source.accounting.invoices': markInvalid } },
    ],
  ],
  409: [BUSY],
});

export const DELETE_STREAM_ANSWERS: ErrorAnswers = mergeErrorAnswers(BY_NAME, { 409: [BUSY] });
