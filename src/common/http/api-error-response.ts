import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from './api-docs.js';
import { FET_CATALOGUE, type FetCode } from '../errors/fet-code.js';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';

/**
 * One documented error answer per status, with an example envelope for each code the route can
 * give under it (Swagger shows them as named examples).
 */
export function ApiErrorResponse(status: number, cases: ReadonlyArray<readonly [FetCode, string]>): MethodDecorator & ClassDecorator {
  const examples = Object.fromEntries(
    cases.map(([code, message]) => [code, { summary: `${code} ${FET_CATALOGUE[code].title}`, value: { code, title: FET_CATALOGUE[code].title, message } }]),
  );
  return applyDecorators(
    ApiResponse({ status, type: ErrorEnvelopeDto, description: cases.map(([code]) => `${code} ${FET_CATALOGUE[code].title}`).join('; '), examples }),
  );
}
