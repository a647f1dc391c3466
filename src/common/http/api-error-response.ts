import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from './api-docs.js';
import { FET_CATALOGUE, type FetCode } from '../errors/fet-code.js';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';

/**
 * One documented error answer per status, with an example envelope for each code the route can
 * give under it (Swagger shows them as named examples).
 */
export function ApiErrorResponse(status: number, cases: ErrorCases): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiResponse({ status, type: ErrorEnvelopeDto, description: errorDescription(cases), examples: errorExamples(cases) }),
  );
}

export type ErrorCases = ReadonlyArray<readonly [FetCode, string]>;

/** `code title; code title`, for a response's description. */
export function errorDescription(cases: ErrorCases): string {
  return cases.map(([code]) => `${code} ${FET_CATALOGUE[code].title}`).join('; ');
}

/** Swagger's named examples: one envelope per code. */
export function errorExamples(
  cases: ErrorCases,
): Record<string, { summary: string; value: { code: FetCode; title: string; message: string } }> {
  return Object.fromEntries(
    cases.map(([code, message]) => [
      code,
      { summary: `${code} ${FET_CATALOGUE[code].title}`, value: { code, title: FET_CATALOGUE[code].title, message } },
    ]),
  );
}
