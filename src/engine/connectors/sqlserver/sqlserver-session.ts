import { ABORT_BUDGET_MS, abortableRead } from '../shared/abortable-read.js';
import { ByteBatcher } from '../shared/byte-batcher.js';
import { type CatalogBudget, defaultCatalogBudget } from '../shared/catalog-budget.js';
import { CatalogSocketTap } from '../shared/catalog-socket-tap.js';
import type { ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../shared/engine-connector.js';
import { CLOSE_TIMEOUT_MS, EngineSession } from '../shared/engine-session.js';
import { DEFAULT_READ_BUDGET } from '../shared/read-budget.js';
import { settleOrCut } from '../shared/settle.js';
import { closePool, type ConnectedPool } from './sqlserver-client.js';
import { discoveryStatement, toSnapshot, type DiscoveryRow } from './sqlserver-discovery.js';
import { PendingRowGuard } from './sqlserver-row-guard.js';
import { prepareRequest, SqlServerRowStream } from './sqlserver-row-stream.js';
import { readRange, ROLLBACK, SNAPSHOT_STATE } from './sqlserver-range-read.js';
import { buildSelect, type SqlStatement } from './sqlserver-sql.js';
import { createBatchRenderer, type RawRow } from './sqlserver-value-encoders.js';

export interface SqlServerSessionContext {
  readonly configName: string;
  readonly defaultSchema: string;
}

/**
 * Safe text of a server or driver error: its message with login names replaced, and the server
 * error number; never the statement or its parameter values.
 */
export function describeError(error: unknown): string {
  const e = error as { message?: unknown; number?: unknown; code?: unknown } | null;
  const message =
    typeof e?.message === 'string'
      ? e.message
          .replace(/(user|login) '[^']*'/gi, '$1 <login>')
          .replace(/principal "[^"]*"/gi, 'principal <login>')
          .slice(0, 300)
      : 'unknown error';
  if (typeof e?.number === 'number') return `${message} (error ${e.number})`;
  return typeof e?.code === 'string' && /^[A-Z0-9_]{3,60}$/.test(e.code) ? `${message} (${e.code})` : message;
}

/**
 * One open connection: discovery and row streams run one after the other on it.
 *
 * After an abort or an early stop the running statement (a read or a catalog query) is cancelled
 * on the server (a TDS attention on the same connection) and the rest of its result dropped; the
 * session then stays usable. Only when the server does not acknowledge the cancel within
 * ABORT_BUDGET_MS is the connection cut, and every later call fails with "Connection lost" (as
 * when the server drops it): a server that has stopped answering cannot hold a caller.
 */
export class SqlServerSession extends EngineSession implements ConnectorSession {
  /** Stops the statement currently running, if any: close() calls it rather than wait for it. */
  private active: (() => Promise<void>) | undefined;
  /** Whether the database allows SNAPSHOT isolation, once a range read has asked. */
  private snapshotAllowed: boolean | undefined;

  constructor(
    private readonly connected: ConnectedPool,
    private readonly ctx: SqlServerSessionContext,
  ) {
    super(ctx.configName, describeError);
    connected.watch.onLost = (error) => {
      if (this.closing === undefined) this.lost ??= error;
    };
  }

  /** The server session id (`@@SPID`) of this connection. */
  get spid(): number {
    return this.connected.spid;
  }

  /**
   * The bytes the connection's socket receives meanwhile are charged to `budget` before tedious
   * parses them: past it the connection is cut and the discovery fails with CatalogTooLargeError.
   */
  async discover(schemas: readonly string[] | null, signal: AbortSignal, budget?: CatalogBudget): Promise<SchemaSnapshot> {
    signal.throwIfAborted();
    this.assertUsable();
    const catalog = budget ?? defaultCatalogBudget(this.ctx.configName);
    const names = schemas === null ? null : schemas.length > 0 ? [...new Set(schemas)] : [this.ctx.defaultSchema];
    const statement = discoveryStatement(names);
    const request = prepareRequest(this.connected.pool, statement, false);
    let query: Promise<SchemaSnapshot> | undefined;
    // mssql fails a request cancelled before it reached the connection with ECANCEL too.
    const cancel = async (): Promise<void> => {
      request.cancel();
      await query?.catch(() => undefined);
    };
    const stop = (): Promise<void> =>
      settleOrCut(cancel(), ABORT_BUDGET_MS, () => this.sever('catalog query could not be cancelled; connection closed'));
    this.active = stop;
    const socket = this.connected.watch.socket();
    const tap =
      socket === undefined
        ? undefined
        : new CatalogSocketTap(socket, catalog, () => this.sever('the schema catalog passed its byte budget; connection closed'));
    try {
      return await abortableRead(
        () => (query = request.query<DiscoveryRow>(statement.text).then((result) => toSnapshot(result.recordset, this.ctx.defaultSchema))),
        signal,
        cancel,
        (error) => catalog.exceeded ?? this.discoveryFailure(error),
        () => this.sever('catalog query could not be cancelled; connection closed'),
      );
    } finally {
      tap?.detach();
      if (this.active === stop) this.active = undefined;
    }
  }

  async *readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    signal.throwIfAborted();
    const table = request.table.key;
    this.assertUsable(table);
    if (request.range === undefined) {
      yield* this.readTable(request, signal);
      return;
    }
    yield* readRange(request, signal, {
      snapshotIsolation: (s) => this.snapshotIsolation(s, table),
      run: (statement, s, batch) => this.run(statement, s, table, batch),
      read: (plain, s) => this.readTable(plain, s),
      rollback: () => this.rollback(table),
    });
  }

  private async *readTable(request: TableReadRequest, signal: AbortSignal): AsyncGenerator<RowBatch> {
    const table = request.table.key;
    this.assertUsable(table);
    const render = createBatchRenderer(request.columns, undefined, request.rowFrame);
    const budget = request.budget ?? DEFAULT_READ_BUDGET;
    // A row too large for the result is refused while it arrives; the stream it belongs to is
    // created just below.
    // oxlint-disable-next-line prefer-const -- the guard's callback, made before the stream, reads it
    let stream: SqlServerRowStream | undefined;
    const socket = this.connected.watch.socket();
    const guard =
      socket === undefined
        ? undefined
        : new PendingRowGuard(socket, budget, table, (error) => {
            stream?.refuse(error);
            this.sever('a value too large for the result was arriving; connection closed', stream);
          });
    stream = new SqlServerRowStream(this.connected.pool, buildSelect(request), new ByteBatcher(budget, table), guard);
    const stop = (): Promise<void> => this.stop(stream);
    this.active = stop;
    try {
      for (;;) {
        // Closed or lost while the consumer held a batch: the statement was stopped, no more rows.
        this.assertUsable(table);
        const rows = await this.readBatch(stream, signal, table);
        if (rows.length === 0) return;
        for (const chunk of render(rows)) {
          signal.throwIfAborted();
          // Closed under a consumer that still holds the iterator: no more rows.
          this.assertOpen(table);
          yield chunk;
        }
      }
    } finally {
      // Early stop, abort or failure while rows are still coming: end the statement.
      await this.stop(stream);
      if (this.active === stop) this.active = undefined;
    }
  }

  /** Idempotent. A stream the consumer left unfinished is stopped first, so closing is prompt. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const active = this.active;
      if (active !== undefined && this.lost === undefined) await active();
      await closePool(this.connected, CLOSE_TIMEOUT_MS);
    })();
    return this.closing;
  }

  /** Asked once per session: a database's setting rarely changes while it is read. */
  private async snapshotIsolation(signal: AbortSignal, table: string): Promise<boolean> {
    if (this.snapshotAllowed === undefined) {
      const [row] = await this.run(SNAPSHOT_STATE, signal, table);
      this.snapshotAllowed = Number(row?.[0]) === 1;
    }
    return this.snapshotAllowed;
  }

  /**
   * A statement whose whole (small) result is wanted, or with `batch` a plain T-SQL batch; an
   * abort cancels it on the server like a read's.
   */
  private async run(statement: SqlStatement, signal: AbortSignal, table: string, batch = false): Promise<RawRow[]> {
    this.assertUsable(table);
    const request = prepareRequest(this.connected.pool, statement, false);
    let query: Promise<RawRow[]> | undefined;
    const cancel = async (): Promise<void> => {
      request.cancel();
      await query?.catch(() => undefined);
    };
    const sever = () => this.sever('statement could not be cancelled; connection closed');
    const stop = (): Promise<void> => settleOrCut(cancel(), ABORT_BUDGET_MS, sever);
    this.active = stop;
    try {
      return await abortableRead(
        () =>
          (query = (batch ? request.batch<RawRow>(statement.text) : request.query<RawRow>(statement.text)).then(
            (result) => result.recordset ?? [],
          )),
        signal,
        cancel,
        (error) => this.readFailure(error, table),
        sever,
      );
    } finally {
      if (this.active === stop) this.active = undefined;
    }
  }

  /**
   * Ends a range read's transaction after a failure, an abort or an early stop, within
   * ABORT_BUDGET_MS, else the connection is cut (the server then rolls back). A closed or lost
   * session has nothing to end: closing the connection ends the transaction with it.
   */
  private async rollback(table: string): Promise<void> {
    if (this.closing !== undefined || this.lost !== undefined) return;
    const done = this.run({ text: ROLLBACK, params: [] }, new AbortController().signal, table, true).catch(() => undefined);
    await settleOrCut(done, ABORT_BUDGET_MS, () => this.sever('transaction could not be rolled back; connection closed'));
  }

  /** One batch, raced against the signal; an abort cancels the statement on the server. */
  private readBatch(stream: SqlServerRowStream, signal: AbortSignal, table: string): Promise<RawRow[]> {
    // Aborted between batches: the finally block of readRows stops the statement.
    return abortableRead(
      () => stream.next(),
      signal,
      async (read) => {
        read.catch(() => undefined);
        stream.cancel();
        await stream.finished;
      },
      (error) => this.readFailure(error, table),
      () => this.sever('statement could not be cancelled; connection closed', stream),
    );
  }

  /**
   * Ends a statement that is still producing rows: cancel it on the server and wait for the
   * acknowledgement. If that does not come within ABORT_BUDGET_MS, the connection is cut so
   * nothing keeps streaming into it (the session is then unusable).
   */
  private async stop(stream: SqlServerRowStream): Promise<void> {
    if (stream.isFinished) return;
    stream.cancel();
    await settleOrCut(stream.finished, ABORT_BUDGET_MS, () => this.sever('statement could not be cancelled; connection closed', stream));
  }

  /** Cuts the connection (the session is lost) and settles the stream that was running on it. */
  private sever(reason: string, stream?: SqlServerRowStream): void {
    this.lost ??= new Error(reason);
    this.connected.watch.cut();
    stream?.abandon(this.lost);
  }
}
