import type { ResolvedDatasource } from '../engine/connectors/shared/engine-connector.js';

/** A datasource as the service resolves it: the engine's, plus the product that owns its connection. */
export interface ServiceDatasource extends ResolvedDatasource {
  /** null: an internal datasource, or a connection no product was assigned yet. */
  readonly productName: string | null;
}
