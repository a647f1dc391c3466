import type { DatasourceType } from '../datasource-type.js';
import type { EngineFacts } from './engine-definition.js';
import type { EngineConnector } from './engine-connector.js';
import { engineFacts } from './engine-facts.js';

/** Finds the connector for an engine, and what is known of the engine before connecting. */
export class ConnectorRegistry {
  private readonly byType: Map<DatasourceType, EngineConnector>;

  constructor(connectors: readonly EngineConnector[]) {
    this.byType = new Map(connectors.map((connector) => [connector.type, connector]));
  }

  find(type: DatasourceType): EngineConnector | undefined {
    return this.byType.get(type);
  }

  /** Its SSL modes, default port and required metadata (the facts its connector's folder declares). */
  facts(type: DatasourceType): EngineFacts {
    return engineFacts(type);
  }
}
