import type { SchemaSnapshot, TableInfo } from '../connectors/shared/engine-connector.js';

/**
 * Discovered schemas, keyed by datasource, its version and the namespaces discovered. An
 * optimisation only: a cache that fails answers a miss. The service shares one through Redis.
 */
export interface SchemaCache {
  get(key: string): Promise<SchemaSnapshot | undefined>;
  set(key: string, snapshot: SchemaSnapshot, ttlSeconds: number): Promise<void>;
}

/**
 * The version (the connection's updatedAt) is part of the key: a PATCH makes every older entry
 * unreachable at once, on every replica, without scanning for keys; they expire by TTL.
 */
export function schemaCacheKey(connectionId: string, version: number, schemas: readonly string[] | null): string {
  const scope = schemas === null ? '*' : [...new Set(schemas)].sort().map(encodeURIComponent).join(',');
  return `fetcher:schema:${connectionId}:${version}:${scope}`;
}

export const serializeSnapshot = (snapshot: SchemaSnapshot) => JSON.stringify([...snapshot.tables.values()]);
export const deserializeSnapshot = (text: string): SchemaSnapshot => ({
  tables: new Map((JSON.parse(text) as TableInfo[]).map((table) => [table.key, table])),
});

const MEMORY_ENTRIES = 500;

export class MemorySchemaCache implements SchemaCache {
  private readonly entries = new Map<string, { text: string; expiresAt: number }>();

  async get(key: string): Promise<SchemaSnapshot | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return deserializeSnapshot(entry.text);
  }

  async set(key: string, snapshot: SchemaSnapshot, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { text: serializeSnapshot(snapshot), expiresAt: Date.now() + ttlSeconds * 1000 });
    // Insertion order makes the first key the oldest: a simple bound on memory.
    while (this.entries.size > MEMORY_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}
