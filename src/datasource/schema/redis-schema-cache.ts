import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { deserializeSnapshot, serializeSnapshot, type SchemaCache } from '../../engine/cache/schema-cache.js';
import type { SchemaSnapshot } from '../../engine/connectors/shared/engine-connector.js';

export const SCHEMA_CACHE = Symbol('SCHEMA_CACHE');

/**
 * Shared by every replica. Errors are logged and treated as a miss: the cache is an optimisation.
 * Bounded per entry (SCHEMA_CACHE_MAX_ENTRY_BYTES: a larger schema is not written, and one found
 * larger is not read) and in time (every entry expires after SCHEMA_CACHE_TTL_SECONDS); how many
 * entries exist at once follows from the discoveries the rate limits let through within a TTL.
 */
export class RedisSchemaCache implements SchemaCache {
  private readonly logger = new Logger('SchemaCache');

  constructor(
    private readonly redis: Redis,
    private readonly maxEntryBytes: number,
  ) {}

  async get(key: string): Promise<SchemaSnapshot | undefined> {
    try {
      // The size first: an entry over the bound (written by a release with a larger one) is not fetched.
      const bytes = await this.redis.strlen(key);
      if (bytes === 0 || bytes > this.maxEntryBytes) return undefined;
      const text = await this.redis.get(key);
      return text === null ? undefined : deserializeSnapshot(text);
    } catch (error) {
      this.logger.warn(`schema cache read failed: ${(error as Error).message}`);
      return undefined;
    }
  }

  async set(key: string, snapshot: SchemaSnapshot, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    const text = serializeSnapshot(snapshot);
    if (Buffer.byteLength(text, 'utf8') > this.maxEntryBytes) return;
    try {
      await this.redis.set(key, text, 'EX', ttlSeconds);
    } catch (error) {
      this.logger.warn(`schema cache write failed: ${(error as Error).message}`);
    }
  }
}
