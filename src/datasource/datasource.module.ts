import { Module } from '@nestjs/common';
import { ConnectionRepository } from './connection.repository.js';
import { ConnectionService } from './connection.service.js';
import { ConnectionTester } from './connection-tester.service.js';
import { ConnectorRegistry } from './connectors/connector-registry.js';
import { ENGINE_CONNECTORS } from './connectors/engine-connector.js';
import { PostgresConnector } from './connectors/postgres/postgres.connector.js';
import { CredentialCipher } from './credential-cipher.service.js';
import { DatasourceResolver } from './datasource-resolver.service.js';

/** Connection records, credential protection and the engine connectors. Shared by both roles. */
@Module({
  providers: [
    ConnectionRepository,
    ConnectionService,
    CredentialCipher,
    DatasourceResolver,
    ConnectionTester,
    ConnectorRegistry,
    PostgresConnector,
    { provide: ENGINE_CONNECTORS, useFactory: (pg: PostgresConnector) => [pg], inject: [PostgresConnector] },
  ],
  exports: [ConnectionService, ConnectionRepository, DatasourceResolver, ConnectionTester, ConnectorRegistry],
})
export class DatasourceModule {}
