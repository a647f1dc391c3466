import { Injectable } from '@nestjs/common';
import { ConnectorRegistry } from './connectors/connector-registry.js';
import type { ConnectorSession, OpenSessionOptions, ResolvedDatasource } from './connectors/engine-connector.js';
import { DatasourceConnectError } from './datasource.error.js';
import { HostGuard } from './ssrf/host-guard.service.js';

/**
 * The one way into a datasource: finds its engine connector and runs the SSRF guard right before
 * every connect (internal datasources are exempt). A refused host throws DatasourceError FET-0414.
 */
@Injectable()
export class DatasourceSessions {
  constructor(
    private readonly connectors: ConnectorRegistry,
    private readonly guard: HostGuard,
  ) {}

  /** Namespace of unqualified table names, or null when the engine has none. */
  defaultSchema(datasource: ResolvedDatasource): string | null {
    return this.connectors.find(datasource.type)?.defaultSchema(datasource) ?? null;
  }

  /** The engine's name folding (identity for engines that match names exactly). */
  canonicalName(datasource: ResolvedDatasource): (name: string) => string {
    const connector = this.connectors.find(datasource.type);
    return connector?.canonicalName ? (name) => connector.canonicalName!(name) : (name) => name;
  }

  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const connector = this.connectors.find(datasource.type);
    if (!connector) {
      throw new DatasourceConnectError(datasource.configName, 'unknown', `engine ${datasource.type} is not supported yet`);
    }
    if (!datasource.internal) await this.guard.assertAllowed(datasource.host);
    return connector.open(datasource, options);
  }
}
