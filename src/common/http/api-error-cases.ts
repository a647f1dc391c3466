import { FetCode } from '../../engine/errors/fet-code.js';
import type { ErrorAnswers, ErrorCase } from './api-error-response.js';

/**
 * The error answers many routes share, with the messages the code really gives (the parse-id
 * pipe, the body parser and limits, the DTO validation, the list parsers, the global filter), for
 * the routes' Swagger answers. A route's own answers come from its service.
 */

/** An id in the examples. */
export const EXAMPLE_ID = '0190f3c2-0000-7000-8000-000000000000';

type Entity = 'connection' | 'job' | 'api key' | 'stream' | 'webhook';

/** 400 FET-0404 of ParseIdPipe on every `{id}` route. */
export const invalidId = (entity: Entity): ErrorAnswers => ({ 400: [[FetCode.InvalidPathId, `invalid ${entity} id`]] });

/** 404 FET-1001 of an unknown (or another product's) entity, in the original's wording (docs/compatibility.md#error-codes). */
export const notFound = (entity: Entity): ErrorAnswers => ({
  404: [
    [
      FetCode.NotFound,
      `It was not possible to find the ${entity} entity during the requested flow. Please review the data provided in the request.`,
    ],
  ],
});

/** 503 FET-0003 of the global filter when the job store cannot be reached. */
export const STORE_UNAVAILABLE: ErrorCase = [
  FetCode.ServiceUnavailable,
  'the job store is unavailable right now; please retry shortly',
  { label: 'store' },
];

/** 500 FET-0002 of the global filter for anything unexpected (a defect): a fixed message, the stack goes to the log. */
export const UNEXPECTED: ErrorCase = [
  FetCode.Internal,
  'The server encountered an unexpected error. Please try again later or contact support.',
  { label: 'unexpected' },
];

/** What any JSON body can be refused for before the route sees it: parser, body limits, DTO validation. */
export const JSON_BODY: ErrorAnswers = {
  400: [
    [FetCode.BadRequest, 'unable to parse request body', { label: 'not JSON' }],
    [FetCode.BadRequest, 'unknown field(s) in request: extra', { label: 'unknown field', fields: { extra: 'extra is not a known field' } }],
    [
      FetCode.BadRequest,
      'body.a.b nests deeper than 32 levels',
      { label: 'body limits', fields: { 'body.a.b': 'body.a.b nests deeper than 32 levels' } },
    ],
  ],
  413: [[FetCode.PayloadTooLarge, 'request body exceeds 1 MiB']],
};

/** FET-0402 of the DTO validation, listing only the missing members. */
export const missingFields = (...paths: string[]): ErrorCase => [
  FetCode.MissingFields,
  'Your request is missing one or more required fields. Please refer to the documentation to ensure all necessary fields are included in your request.',
  { fields: Object.fromEntries(paths.map((path) => [path, `${path} is a required field`])) },
];

/** FET-0001 of the DTO validation: a member of the wrong type or out of range. */
export const invalidField = (path: string, problem: string): ErrorCase => [
  FetCode.BadRequest,
  'The server could not understand the request due to malformed syntax. Please check the listed fields and try again.',
  { label: path, fields: { [path]: problem } },
];

const query = (code: FetCode, message: string, name: string, label?: string): ErrorCase => [
  code,
  message,
  { label, fields: { [name]: message } },
];

/** The 400s of a list's query (src/common/http/pagination.ts, list-request.ts). */
export const LIST_QUERY: ErrorAnswers = {
  400: [
    query(FetCode.InvalidQuery, 'unknown query parameter(s): sourse', 'sourse', 'unknown parameter'),
    query(FetCode.InvalidQuery, 'query parameter page must be given once', 'page', 'repeated parameter'),
    query(FetCode.InvalidQuery, 'page must be an integer greater than 0', 'page', 'page'),
    query(
      FetCode.PageLimitExceeded,
      'The pagination limit exceeds the maximum allowed of 100 items per page. Please verify the limit and try again.',
      'limit',
    ),
    query(FetCode.InvalidSortOrder, "sortOrder must be 'asc' or 'desc'", 'sortOrder'),
    query(FetCode.InvalidDate, 'startDate must be a date as YYYY-MM-DD', 'startDate'),
    query(FetCode.InvalidDateRange, 'endDate cannot be earlier than startDate', 'endDate'),
  ],
};

/** 400 FET-0403 of X-Product-Name (src/common/http/product-name.decorator.ts). */
export const INVALID_PRODUCT_HEADER: ErrorCase = [
  FetCode.InvalidHeader,
  'X-Product-Name can only contain alphanumeric characters, underscores, and hyphens',
  { label: 'invalid' },
];

/** 500 FET-0002 of a route that opens a stored connection's secrets sealed under a key version no longer configured. */
export const CREDENTIAL_KEY_MISSING: ErrorAnswers = {
  500: [
    [
      FetCode.Internal,
      'a stored credential is encrypted with key version 1, which is not configured: set APP_ENC_KEY_1 to the master key of that version',
    ],
  ],
};
