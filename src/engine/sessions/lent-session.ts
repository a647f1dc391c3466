import type { ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../connectors/shared/engine-connector.js';
import type { CatalogBudget } from '../connectors/shared/catalog-budget.js';
import { DatasourceQueryError } from '../errors/datasource-errors.js';

/**
 * A pooled session as one caller holds it: close() hands it back (the pool keeps or closes it)
 * exactly once, and after that the caller can no longer reach it, whoever uses it next.
 */
export class LentSession implements ConnectorSession {
  private session: ConnectorSession | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    session: ConnectorSession,
    private readonly configName: string,
    private readonly giveBack: (session: ConnectorSession) => Promise<void>,
  ) {
    this.session = session;
  }

  discover(schemas: readonly string[] | null, signal: AbortSignal, budget?: CatalogBudget): Promise<SchemaSnapshot> {
    return this.held().discover(schemas, signal, budget);
  }

  readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    return this.held().readRows(request, signal);
  }

  close(): Promise<void> {
    if (this.closing === undefined) {
      const session = this.session;
      this.session = undefined;
      this.closing = session === undefined ? Promise.resolve() : this.giveBack(session);
    }
    return this.closing;
  }

  private held(): ConnectorSession {
    if (this.session === undefined) throw new DatasourceQueryError(this.configName, 'Session is closed');
    return this.session;
  }
}
