import { afterAll, beforeAll } from 'vitest';

/**
 * Something a describe creates before its tests and drops after them (a temporary database):
 * made in a beforeAll that runs before the describe's own later hooks, dropped after its afterAll
 * hooks. The function gives it to those hooks and to the tests.
 */
export function useDropped<T extends { drop(): Promise<unknown> }>(what: string, create: () => Promise<T>): () => T {
  let made: T | undefined;
  beforeAll(async () => {
    made = await create();
  });
  afterAll(async () => {
    await made?.drop();
  });
  return () => {
    if (made === undefined) throw new Error(`${what} is used before its describe's hooks ran`);
    return made;
  };
}
