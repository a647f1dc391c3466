import type { ConnectorSession, ResolvedDatasource, TableReadRequest } from '../connectors/shared/engine-connector.js';
import type { ExtractionCeilings } from '../request/data-request.js';

export interface DatasourcePlan {
  readonly configName: string;
  readonly datasource: ResolvedDatasource;
  /** Opened and used for discovery during planning; reused for extraction, closed by the plan. */
  readonly session: ConnectorSession;
  /** Sorted by result key. */
  readonly tables: readonly TableReadRequest[];
}

export interface ExtractionPlan {
  /** Sorted by config name: the order they appear in the result. */
  readonly datasources: readonly DatasourcePlan[];
  readonly limits: ExtractionCeilings;
}
