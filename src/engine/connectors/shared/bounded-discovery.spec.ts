import { describe, expect, it } from 'vitest';
import { CatalogTooLargeError } from '../../errors/engine-errors.js';
import { FetCode } from '../../errors/fet-code.js';
import type { CatalogBudget } from './catalog-budget.js';
import { discoverWithinBudget } from './bounded-discovery.js';
import type { ConnectorSession, SchemaSnapshot } from './engine-connector.js';

const SNAPSHOT: SchemaSnapshot = { tables: [] } as unknown as SchemaSnapshot;

/** A session whose driver completed its answer in the very chunk that was charged `chargedBytes`. */
const sessionCharging = (chargedBytes: number): ConnectorSession =>
  ({
    discover: async (_schemas: readonly string[] | null, _signal: AbortSignal, budget: CatalogBudget) => {
      budget.tryCharge(chargedBytes);
      return SNAPSHOT;
    },
  }) as unknown as ConnectorSession;

describe('discoverWithinBudget', () => {
  const signal = new AbortController().signal;

  it('answers the snapshot of a catalog within the budget', async () => {
    await expect(discoverWithinBudget(sessionCharging(64), null, signal, 64, 'pg')).resolves.toBe(SNAPSHOT);
  });

  it('fails with FET-1044 a discovery that resolved although its catalog passed the budget', async () => {
    const failing = discoverWithinBudget(sessionCharging(65), null, signal, 64, 'pg');
    await expect(failing).rejects.toBeInstanceOf(CatalogTooLargeError);
    await expect(failing).rejects.toMatchObject({ code: FetCode.SchemaCatalogTooLarge });
  });
});
