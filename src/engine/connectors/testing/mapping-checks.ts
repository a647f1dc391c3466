import { expect } from 'vitest';

/**
 * Holds `fn` to map each key of `cases` to its value, in the order written (keys that read as
 * whole numbers would come first: the tables here have none).
 */
export function expectMapsEach(fn: (input: string) => unknown, cases: Readonly<Record<string, unknown>>): void {
  // The input goes along so that a failure names the case.
  for (const [input, output] of Object.entries(cases)) expect({ input, output: fn(input) }).toEqual({ input, output });
}
