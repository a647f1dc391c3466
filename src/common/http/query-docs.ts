/**
 * The list routes' shared query parameters as the API document shows them, each typed: a parameter
 * without a schema type becomes `unknown` in a generated client. No example date range: Swagger UI
 * pre-fills examples, and a range there would filter the walkthrough's job out of the first list.
 */
export const PAGE_QUERY = { name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 } } as const;
export const LIMIT_QUERY = {
  name: 'limit',
  required: false,
  description: 'At most 100.',
  schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
} as const;

/** `startDate` / `endDate`: a UTC day, YYYY-MM-DD. */
export const dateQuery = (name: 'startDate' | 'endDate', description: string) =>
  ({ name, required: false, description, schema: { type: 'string', format: 'date' } }) as const;

/** A free-text filter or name. */
export const textQuery = (name: string, description?: string, example?: string) =>
  ({
    name,
    required: false,
    ...(description ? { description } : {}),
    schema: { type: 'string', ...(example ? { example } : {}) },
  }) as const;
