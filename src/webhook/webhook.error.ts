import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError } from '../engine/errors/fetcher-error.js';

/** Webhooks: not found (also another product's), a refused target URL. */
export class WebhookError extends FetcherError {}

/** 404 FET-1001 in the original's wording (docs/compatibility.md#error-codes); also what another product's webhook answers. */
export function webhookNotFound(): WebhookError {
  return new WebhookError(
    FetCode.NotFound,
    'It was not possible to find the webhook entity during the requested flow. Please review the data provided in the request.',
  );
}

/** 400 FET-0001 naming `url`: not an absolute http(s) URL, or one with a user:password part. */
export function invalidWebhookUrl(problem: string): WebhookError {
  return new WebhookError(
    FetCode.BadRequest,
    'The server could not understand the request due to malformed syntax. Please check the listed fields and try again.',
    { fields: { url: problem } },
  );
}

/** 400 FET-0414 naming `url`: the egress policy refuses its host (the host is never echoed). */
export function forbiddenWebhookHost(): WebhookError {
  return new WebhookError(FetCode.ForbiddenHost, 'Host is not a valid webhook endpoint', {
    fields: { url: 'this host is not allowed: loopback, private, link-local and cloud metadata addresses are refused' },
  });
}
