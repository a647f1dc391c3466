import { invalidField, invalidId, JSON_BODY, LIST_QUERY, missingFields, notFound } from '../common/http/api-error-cases.js';
import { mergeErrorAnswers, type ErrorAnswers, type ErrorCase } from '../common/http/api-error-response.js';
import { FetCode } from '../engine/errors/fet-code.js';

/**
 * The Swagger answers of the webhook routes (WebhookController), with the messages the DTO
 * validation, WebhookService and the egress policy really give.
 */

const FORBIDDEN_HOST: ErrorCase = [
  FetCode.ForbiddenHost,
  'Host is not a valid webhook endpoint',
  { fields: { url: 'this host is not allowed: loopback, private, link-local and cloud metadata addresses are refused' } },
];
const PRODUCT_HEADER_REQUIRED: ErrorCase = [
  FetCode.InvalidHeader,
  'X-Product-Name header is required and must not be empty',
  { label: 'missing' },
];
const NOT_ACTING_FOR: ErrorCase = [FetCode.Forbidden, "This credential does not act for product 'billing'", { label: 'X-Product-Name' }];

// The list takes page and limit only.
const PAGE_REFUSALS = (LIST_QUERY[400] ?? []).filter(([code]) => code === FetCode.InvalidQuery || code === FetCode.PageLimitExceeded);

const BY_ID: ErrorAnswers = mergeErrorAnswers(invalidId('webhook'), notFound('webhook'));

export const CREATE_WEBHOOK_ANSWERS: ErrorAnswers = mergeErrorAnswers(JSON_BODY, {
  400: [
    missingFields('url', 'events'),
    invalidField('url', 'url must use http or https'),
    invalidField('events', 'events must list at least one event type'),
    [
      FetCode.BadRequest,
      'The server could not understand the request due to malformed syntax. Please check the listed fields and try again.',
      { label: 'unknown event', fields: { events: 'each event must be one of job.completed, job.failed' } },
    ],
    invalidField('description', 'description must be at most 500 characters'),
    FORBIDDEN_HOST,
    PRODUCT_HEADER_REQUIRED,
  ],
  403: [NOT_ACTING_FOR],
});

export const LIST_WEBHOOKS_ANSWERS: ErrorAnswers = { 400: PAGE_REFUSALS, 403: [NOT_ACTING_FOR] };
export const GET_WEBHOOK_ANSWERS: ErrorAnswers = BY_ID;
export const DELETE_WEBHOOK_ANSWERS: ErrorAnswers = BY_ID;
export const ROTATE_SECRET_ANSWERS: ErrorAnswers = BY_ID;
export const LIST_DELIVERIES_ANSWERS: ErrorAnswers = mergeErrorAnswers(BY_ID, { 400: PAGE_REFUSALS });
