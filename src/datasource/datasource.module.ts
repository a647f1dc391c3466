import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { EgressGuard } from '../engine/egress/egress-guard.js';
import { Engine } from '../engine/engine.js';
import { ConnectionRepository } from './connection.repository.js';
import { ConnectionTestSlots } from './connection-test-slots.js';
import { ConnectionTester } from './connection-tester.service.js';
import { CredentialCipher } from './credential-cipher.service.js';
import { DatasourceResolver } from './datasource-resolver.service.js';
import { ENGINE_PROVIDERS } from './engine.provider.js';
import { InternalDatasources } from './internal/internal-datasources.service.js';
import { SchemaService } from './schema/schema.service.js';

/** What the other modules use; the rest (schema cache, DNS) stays behind these. */
const EXPORTED = [
  ConnectionRepository,
  CredentialCipher,
  InternalDatasources,
  DatasourceResolver,
  ConnectionTester,
  EgressGuard,
  Engine,
  SchemaService,
];

/**
 * Connection records, credential protection, internal datasources, and the extraction engine
 * (src/engine/) configured for the service, with the egress guard it connects through. Shared by
 * both roles. At shutdown, after the worker drained, the engine's pooled source sessions close.
 */
@Module({
  providers: [...EXPORTED.filter((provider) => provider !== EgressGuard && provider !== Engine), ConnectionTestSlots, ...ENGINE_PROVIDERS],
  exports: EXPORTED,
})
export class DatasourceModule implements OnApplicationShutdown {
  constructor(private readonly engine: Engine) {}

  async onApplicationShutdown(): Promise<void> {
    await this.engine.close();
  }
}
