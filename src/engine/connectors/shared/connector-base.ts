import type { DatasourceType } from '../datasource-type.js';
import type { EngineFacts } from './engine-definition.js';
import type { ConnectorSession, EngineConnector, OpenSessionOptions, ResolvedDatasource } from './engine-connector.js';

/**
 * What every connector class states the same way: its engine is the one its facts
 * (`<engine>-engine.ts`) describe, and table names are never qualified unless it says otherwise.
 */
export abstract class ConnectorBase implements EngineConnector {
  abstract readonly facts: EngineFacts & { readonly type: DatasourceType };

  get type(): DatasourceType {
    return this.facts.type;
  }

  /**
   * null: the connected database is the only namespace (MySQL, MongoDB), so `a.b` names a table
   * (or collection) called `a.b`. Engines with schemas override it.
   */
  defaultSchema(_datasource: ResolvedDatasource): string | null {
    return null;
  }

  abstract open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession>;
}
