import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { deserializeSnapshot, serializeSnapshot, type SchemaCache } from '../../engine/cache/schema-cache.js';
import type { SchemaSnapshot } from '../../engine/connectors/shared/engine-connector.js';

export const SCHEMA_CACHE = Symbol('SCHEMA_CACHE');

/** Shared by every replica. Errors are logged and treated as a miss: the cache is an optimisation. */
export class RedisSchemaCache implements SchemaCache {
  private readonly logger = new Logger('SchemaCache');

  constructor(private readonly redis: Redis) {}

  async get(key: string): Promise<SchemaSnapshot | undefined> {
    try {
      const text = await this.redis.get(key);
      return text === null ? undefined : deserializeSnapshot(text);
    } catch (error) {
      this.logger.warn(`schema cache read failed: ${(error as Error).message}`);
      return undefined;
    }
  }

  async set(key: string, snapshot: SchemaSnapshot, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    try {
      await this.redis.set(key, serializeSnapshot(snapshot), 'EX', ttlSeconds);
    } catch (error) {
      this.logger.warn(`schema cache write failed: ${(error as Error).message}`);
    }
  }
}
