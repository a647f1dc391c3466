import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth } from '../common/http/api-docs.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { STORE_UNAVAILABLE, UNEXPECTED } from '../common/http/api-error-cases.js';
import { ApiErrorResponses, mergeErrorAnswers, type ErrorAnswers, type ErrorCase } from '../common/http/api-error-response.js';
import { Access } from './access.decorators.js';

export const BEARER_SCHEME = 'bearer';

/** What the global guard answers on every protected route (src/auth/auth.guard.ts, the authenticators, the failure limit). */
const AUTHENTICATION: ErrorAnswers = {
  401: [
    [FetCode.Unauthenticated, 'Authentication required: send Authorization: Bearer <API key or token>', { label: 'no credential' }],
    [FetCode.Unauthenticated, 'The API key is not valid or has been revoked', { label: 'invalid credential' }],
  ],
  // The client's address used up AUTH_FAILURE_LIMIT_PER_MINUTE (AuthFailureService).
  429: [
    [
      FetCode.RateLimited,
      'Failed authentication limit of 60 per minute reached. Try again in 42 seconds.',
      { label: 'failed authentications', extra: { retryAfterSeconds: 42 } },
    ],
  ],
  // In AUTH_MODE=apikey the key store is the job store; in jwt, the issuer's JWKS endpoint.
  503: [
    STORE_UNAVAILABLE,
    [FetCode.ServiceUnavailable, 'the signing keys of the token issuer cannot be fetched right now; please retry', { label: 'JWKS' }],
  ],
};

const OPERATORS_ONLY: ErrorCase = [FetCode.Forbidden, 'This route is for operators only', { label: 'operators only' }];

/** The bearer scheme of a protected controller; each route lists its answers with ApiErrors. */
export function ApiAuth(): ClassDecorator {
  return applyDecorators(ApiBearerAuth(BEARER_SCHEME));
}

/**
 * Every error answer of one route, for Swagger: the guard's (401, 503 credential store; 403 on an
 * operator route) and the global filter's 500 merged with the route's own, one response per status
 * with an example per code. The route's own 403, 500 and 503 cases join those under the same status
 * instead of hiding them.
 */
export function ApiErrors(access: Access, answers: ErrorAnswers): MethodDecorator {
  return ApiErrorResponses(withGuardAnswers(access, answers));
}

/** The route's answers with the guard's of its access joined in. */
function withGuardAnswers(access: Access, answers: ErrorAnswers): ErrorAnswers {
  const guard: ErrorAnswers[] = [];
  if (access !== Access.Public) guard.push(AUTHENTICATION, { 500: [UNEXPECTED] });
  if (access === Access.Operator) guard.push({ 403: [OPERATORS_ONLY] });
  return dedupe(mergeErrorAnswers(...guard, answers));
}

/** The store case of the guard and of the route's own lookups is one answer. */
function dedupe(answers: ErrorAnswers): ErrorAnswers {
  return Object.fromEntries(
    Object.entries(answers).map(([status, cases]) => [
      status,
      cases?.filter((item, index) => cases.findIndex((other) => other[0] === item[0] && other[2]?.label === item[2]?.label) === index),
    ]),
  );
}
