import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS_CLIENT } from '../common/redis/redis.module.js';
import { ConnectionRepository } from './connection.repository.js';
import { ConnectionTester } from './connection-tester.service.js';
import { ConnectorRegistry } from '../engine/connectors/shared/connector-registry.js';
import { ENGINE_CONNECTORS, type EngineConnector } from '../engine/connectors/shared/engine-connector.js';
import { MongoDbConnector } from '../engine/connectors/mongodb/mongodb.connector.js';
import { MySqlConnector } from '../engine/connectors/mysql/mysql.connector.js';
import { OracleConnector } from '../engine/connectors/oracle/oracle.connector.js';
import { POSTGRES_READ_PATH, PostgresConnector } from '../engine/connectors/postgres/postgres.connector.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SqlServerConnector } from '../engine/connectors/sqlserver/sqlserver.connector.js';
import { CredentialCipher } from './credential-cipher.service.js';
import { DatasourceResolver } from './datasource-resolver.service.js';
import { DatasourceSessions } from './datasource-sessions.service.js';
import { InternalDatasources } from './internal/internal-datasources.service.js';
import { RequestedSchemaMatcher } from './schema/requested-schema-matcher.service.js';
import { MemorySchemaCache, RedisSchemaCache, SCHEMA_CACHE } from './schema/schema-cache.js';
import { SchemaService } from './schema/schema.service.js';
import { ADDRESS_RESOLVER, systemResolver } from '../engine/egress/address-resolver.js';
import { HostGuard } from '../engine/egress/egress-guard.js';

/** One class per engine (adding one: see EngineConnector), each provided and handed to the registry as ENGINE_CONNECTORS. */
const CONNECTORS = [PostgresConnector, MySqlConnector, SqlServerConnector, OracleConnector, MongoDbConnector];

/** What the other modules use; the rest (connectors, schema cache, DNS) stays behind these. */
const EXPORTED = [
  ConnectionRepository,
  CredentialCipher,
  InternalDatasources,
  DatasourceResolver,
  DatasourceSessions,
  ConnectionTester,
  ConnectorRegistry,
  HostGuard,
  SchemaService,
  RequestedSchemaMatcher,
];

/**
 * Connection records, credential protection, internal datasources, the engine connectors and the
 * SSRF guard in front of them. Shared by both roles.
 */
@Module({
  providers: [
    ...EXPORTED,
    ...CONNECTORS,
    { provide: ADDRESS_RESOLVER, useValue: systemResolver },
    { provide: POSTGRES_READ_PATH, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.postgresReadPath },
    { provide: ENGINE_CONNECTORS, inject: CONNECTORS, useFactory: (...connectors: EngineConnector[]) => connectors },
    {
      provide: SCHEMA_CACHE,
      inject: [REDIS_CLIENT],
      useFactory: (redis: Redis | null) => (redis ? new RedisSchemaCache(redis) : new MemorySchemaCache()),
    },
  ],
  exports: EXPORTED,
})
export class DatasourceModule {}
