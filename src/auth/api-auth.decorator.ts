import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '../common/http/api-docs.js';
import { ErrorEnvelopeDto } from '../common/http/error-envelope.dto.js';
import { FetCode } from '../common/errors/fet-code.js';
import { Access } from './access.decorators.js';

export const BEARER_SCHEME = 'bearer';

const UNAUTHENTICATED = {
  status: 401,
  type: ErrorEnvelopeDto,
  description: 'FET-0010: no credential, or an invalid, revoked or expired one (with WWW-Authenticate: Bearer)',
  example: {
    code: FetCode.Unauthenticated,
    title: 'Unauthorized',
    message: 'Authentication required: send Authorization: Bearer <API key or token>',
  },
};

const FORBIDDEN: Record<Exclude<Access, Access.Public>, string> = {
  [Access.Principal]: 'FET-0011: X-Product-Name or metadata.source names a product this credential does not act for',
  [Access.Operator]: 'FET-0011: the route is for operators only',
};

/** The bearer scheme and the 401/403 answers of a protected controller, for Swagger. */
export function ApiAuth(access: Exclude<Access, Access.Public>): ClassDecorator {
  return applyDecorators(ApiBearerAuth(BEARER_SCHEME), ApiResponse(UNAUTHENTICATED), forbiddenResponse(access));
}

/** On a route of a product-facing controller that only operators may call: its 403 says so. */
export function ApiOperatorRoute(): MethodDecorator {
  return applyDecorators(forbiddenResponse(Access.Operator));
}

function forbiddenResponse(access: Exclude<Access, Access.Public>) {
  return ApiResponse({
    status: 403,
    type: ErrorEnvelopeDto,
    description: FORBIDDEN[access],
    example: { code: FetCode.Forbidden, title: 'Forbidden', message: FORBIDDEN[access].slice('FET-0011: '.length) },
  });
}
