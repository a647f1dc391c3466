import { Logger, type Provider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS_CLIENT } from '../common/redis/redis.module.js';
import { Tracing } from '../common/tracing/tracing.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MemorySchemaCache, type SchemaCache } from '../engine/cache/schema-cache.js';
import { systemResolver, type AddressResolver } from '../engine/egress/address-resolver.js';
import { EgressGuard } from '../engine/egress/egress-guard.js';
import { createEngine, Engine } from '../engine/engine.js';
import type { EngineLogger } from '../engine/support/engine-logger.js';
import { RedisSchemaCache, SCHEMA_CACHE } from './schema/redis-schema-cache.js';

/** How host names are resolved before the egress check; tests replace it (a name that rebinds, one that does not resolve). */
export const ADDRESS_RESOLVER = Symbol('ADDRESS_RESOLVER');

const engineLogger = (logger: Logger): EngineLogger => ({ warn: (message, fields) => logger.warn(message, fields) });

/**
 * The extraction engine as the service configures it: its limits are the service's ceilings, its
 * egress policy ALLOW_PRIVATE_HOSTS (one EgressGuard, which connection records are checked with
 * too), its catalog budget SCHEMA_DISCOVERY_MAX_BYTES, its schema cache Redis when there is one
 * (in-process memory otherwise, bounded by SCHEMA_CACHE_MAX_BYTES), its tracer the service's.
 */
export const ENGINE_PROVIDERS: Provider[] = [
  { provide: ADDRESS_RESOLVER, useValue: systemResolver },
  {
    provide: EgressGuard,
    inject: [APP_CONFIG, ADDRESS_RESOLVER],
    useFactory: (config: AppConfig, resolver: AddressResolver) =>
      new EgressGuard({ allowPrivateHosts: config.allowPrivateHosts }, resolver),
  },
  {
    provide: SCHEMA_CACHE,
    inject: [APP_CONFIG, REDIS_CLIENT],
    useFactory: (config: AppConfig, redis: Redis | null): SchemaCache =>
      redis ? new RedisSchemaCache(redis, config.schemaCache.maxEntryBytes) : new MemorySchemaCache(config.schemaCache),
  },
  {
    provide: Engine,
    inject: [APP_CONFIG, EgressGuard, SCHEMA_CACHE, { token: Tracing, optional: true }],
    useFactory: (config: AppConfig, guard: EgressGuard, schemaCache: SchemaCache, tracing?: Tracing) =>
      createEngine({
        limits: config.extraction,
        egress: guard,
        allowPlaintextPassword: config.allowPlaintextPassword,
        postgresReadPath: config.postgresReadPath,
        discoveryTimeoutMs: config.schemaDiscoveryTimeoutMs,
        discoveryMaxBytes: config.schemaDiscoveryMaxBytes,
        schemaCache,
        schemaCacheTtlSeconds: config.schemaCacheTtlSeconds,
        sessionPool: config.sourcePool,
        logger: engineLogger(new Logger('Engine')),
        tracer: tracing,
      }),
  },
];
