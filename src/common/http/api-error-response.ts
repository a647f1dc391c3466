import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from './api-docs.js';
import { FET_CATALOGUE, type FetCode } from '../../engine/errors/fet-code.js';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';

/** What an example envelope carries besides code, title and message, and how Swagger names it. */
export interface ErrorCaseExtras {
  /** Tells apart two examples of one code (`FET-0001 unknown field`). */
  readonly label?: string;
  readonly fields?: Record<string, string>;
  readonly details?: ReadonlyArray<Record<string, string>>;
  /** Top-level members some answers add (`reason` of a failed connection test, `retryAfterSeconds`). */
  readonly extra?: Record<string, string | number>;
}

/** One code a route answers under a status, with the message it really gives. */
export type ErrorCase = readonly [code: FetCode, message: string, extras?: ErrorCaseExtras];
export type ErrorCases = ReadonlyArray<ErrorCase>;

/** Every error answer of a route: status → the cases it gives under it. */
export type ErrorAnswers = Readonly<Partial<Record<number, ErrorCases>>>;

export interface ErrorResponseOptions {
  /** Response headers that go with the answer (WWW-Authenticate, Retry-After). */
  readonly headers?: Record<string, { description: string; schema: { type: string; example?: string | number } }>;
}

/** Headers the FET answers of one status always carry. */
const STATUS_HEADERS: Readonly<Record<number, ErrorResponseOptions['headers']>> = {
  401: { 'WWW-Authenticate': { description: 'The Bearer challenge', schema: { type: 'string', example: 'Bearer realm="fetcher"' } } },
  429: { 'Retry-After': { description: 'Seconds until the limit admits another call', schema: { type: 'integer', example: 42 } } },
};

/**
 * One documented error answer per status, with an example envelope for each code the route can
 * give under it (Swagger shows them as named examples, so a 400 with six codes shows all six).
 * The content is spelled out rather than given by `type`: on a route that produces another media
 * type too (a result download), Swagger would list the envelope under both, while errors are JSON.
 */
export function ApiErrorResponse(status: number, cases: ErrorCases, options: ErrorResponseOptions = {}): MethodDecorator & ClassDecorator {
  const headers = options.headers ?? STATUS_HEADERS[status];
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto),
    ApiResponse({
      status,
      description: errorDescription(cases),
      content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeDto) }, examples: errorExamples(cases) } },
      ...(headers ? { headers } : {}),
    }),
  );
}

/** Every error answer of a route, one ApiErrorResponse per status. */
export function ApiErrorResponses(answers: ErrorAnswers): MethodDecorator {
  return applyDecorators(
    ...Object.entries(answers)
      .filter((entry): entry is [string, ErrorCases] => entry[1] !== undefined && entry[1].length > 0)
      .map(([status, cases]) => ApiErrorResponse(Number(status), cases)),
  );
}

/** The answers of several sources (the auth guard, a pipe, the service) under one status each. */
export function mergeErrorAnswers(...sources: ErrorAnswers[]): ErrorAnswers {
  const merged: Record<number, ErrorCase[]> = {};
  for (const answers of sources) {
    for (const [status, cases] of Object.entries(answers)) (merged[Number(status)] ??= []).push(...(cases ?? []));
  }
  return merged;
}

/** `code title; code title`, for a response's description; a code given twice is named once. */
export function errorDescription(cases: ErrorCases): string {
  return [...new Set(cases.map(([code]) => code))].map((code) => `${code} ${FET_CATALOGUE[code].title}`).join('; ');
}

export interface ErrorExample {
  readonly summary: string;
  readonly value: { code: FetCode; title: string; message: string; [member: string]: unknown };
}

/** Swagger's named examples: one envelope per case, named by its code (and label, when a code has several). */
export function errorExamples(cases: ErrorCases): Record<string, ErrorExample> {
  const examples: Record<string, ErrorExample> = {};
  for (const [code, message, extras = {}] of cases) {
    const name = extras.label === undefined ? code : `${code} ${extras.label}`;
    if (name in examples) throw new Error(`two error examples named ${name}: give one a label`);
    const { title } = FET_CATALOGUE[code];
    const value: ErrorExample['value'] = { code, title, message, ...extras.extra };
    if (extras.fields) value.fields = extras.fields;
    if (extras.details) value.details = extras.details;
    examples[name] = { summary: extras.label === undefined ? `${code} ${title}` : `${code} ${title}: ${extras.label}`, value };
  }
  return examples;
}
