import type { DatasourceType } from '../datasource-type.js';
import type { EngineConnector } from './engine-connector.js';

/** Finds the connector for an engine (what is known of an engine without one is in engine-facts.ts). */
export class ConnectorRegistry {
  private readonly byType: Map<DatasourceType, EngineConnector>;

  constructor(connectors: readonly EngineConnector[]) {
    this.byType = new Map(connectors.map((connector) => [connector.type, connector]));
  }

  find(type: DatasourceType): EngineConnector | undefined {
    return this.byType.get(type);
  }
}
