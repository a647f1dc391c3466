import { Inject, Injectable } from '@nestjs/common';
import type { DatasourceType } from '../../datasource-type.js';
import { ENGINE_CONNECTORS, type EngineConnector } from './engine-connector.js';

/** Finds the connector for an engine; engines are registered in DatasourceModule. */
@Injectable()
export class ConnectorRegistry {
  private readonly byType: Map<DatasourceType, EngineConnector>;

  constructor(@Inject(ENGINE_CONNECTORS) connectors: EngineConnector[]) {
    this.byType = new Map(connectors.map((connector) => [connector.type, connector]));
  }

  find(type: DatasourceType): EngineConnector | undefined {
    return this.byType.get(type);
  }
}
