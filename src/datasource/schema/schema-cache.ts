import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { SchemaSnapshot, TableInfo } from '../../engine/connectors/shared/engine-connector.js';

/** Discovered schemas, keyed by connection, its version and the namespaces discovered. */
export interface SchemaCache {
  get(key: string): Promise<SchemaSnapshot | undefined>;
  set(key: string, snapshot: SchemaSnapshot, ttlSeconds: number): Promise<void>;
}

export const SCHEMA_CACHE = Symbol('SCHEMA_CACHE');

/**
 * The version (the connection's updatedAt) is part of the key: a PATCH makes every older entry
 * unreachable at once, on every replica, without scanning for keys; they expire by TTL.
 */
export function schemaCacheKey(connectionId: string, version: number, schemas: readonly string[] | null): string {
  const scope = schemas === null ? '*' : [...new Set(schemas)].sort().map(encodeURIComponent).join(',');
  return `fetcher:schema:${connectionId}:${version}:${scope}`;
}

const serialize = (snapshot: SchemaSnapshot) => JSON.stringify([...snapshot.tables.values()]);
const deserialize = (text: string): SchemaSnapshot => ({
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
    return deserialize(entry.text);
  }

  async set(key: string, snapshot: SchemaSnapshot, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { text: serialize(snapshot), expiresAt: Date.now() + ttlSeconds * 1000 });
    // Insertion order makes the first key the oldest: a simple bound on memory.
    while (this.entries.size > MEMORY_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** Shared by every replica. Errors are logged and treated as a miss: the cache is an optimisation. */
export class RedisSchemaCache implements SchemaCache {
  private readonly logger = new Logger('SchemaCache');

  constructor(private readonly redis: Redis) {}

  async get(key: string): Promise<SchemaSnapshot | undefined> {
    try {
      const text = await this.redis.get(key);
      return text === null ? undefined : deserialize(text);
    } catch (error) {
      this.logger.warn(`schema cache read failed: ${(error as Error).message}`);
      return undefined;
    }
  }

  async set(key: string, snapshot: SchemaSnapshot, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    try {
      await this.redis.set(key, serialize(snapshot), 'EX', ttlSeconds);
    } catch (error) {
      this.logger.warn(`schema cache write failed: ${(error as Error).message}`);
    }
  }
}
