import { CatalogBudget } from './catalog-budget.js';
import type { ConnectorSession, SchemaSnapshot } from './engine-connector.js';

/**
 * `session.discover` held to a catalog budget of `maxBytes`. A connector cuts its connection as
 * soon as the budget is passed, but the chunk that passed it may already hold the rest of the
 * driver's answer (a small catalog arrives in one socket chunk), so the discovery can still
 * resolve: it fails here all the same, with the budget's CatalogTooLargeError.
 */
export async function discoverWithinBudget(
  session: ConnectorSession,
  schemas: readonly string[] | null,
  signal: AbortSignal,
  maxBytes: number,
  configName: string,
): Promise<SchemaSnapshot> {
  const budget = new CatalogBudget(maxBytes, configName);
  const snapshot = await session.discover(schemas, signal, budget);
  if (budget.exceeded) throw budget.exceeded;
  return snapshot;
}
