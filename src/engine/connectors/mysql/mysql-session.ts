import type { Connection, ConnectionOptions } from 'mysql2';
import type { Readable } from 'node:stream';
import { ABORT_BUDGET_MS, abortableRead } from '../shared/abortable-read.js';
import { type CatalogBudget, defaultCatalogBudget } from '../shared/catalog-budget.js';
import type { ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../shared/engine-connector.js';
import { CLOSE_TIMEOUT_MS, EngineSession } from '../shared/engine-session.js';
import { DEFAULT_READ_BUDGET, type ValueTooLargeError } from '../shared/read-budget.js';
import { settleOrCut, settlesWithin } from '../shared/settle.js';
import { cancelOrCut } from '../shared/statement-cancel.js';
import type { RowSizeGuard } from '../shared/wire-frames.js';
import { destroyConnection, endConnection, killQuery, runQuery } from './mysql-client.js';
import { COLUMNS_SQL, JSON_CHECKS_SQL, PRIMARY_KEYS_SQL, toSnapshot } from './mysql-discovery.js';
import { mySqlPacketGuard } from './mysql-packet-gauge.js';
import { type RangeReadSession, readRange, ROLLBACK_SQL } from './mysql-range-read.js';
import { RenderedRowCollector, type RenderedRows } from './mysql-rendered-rows.js';
import { MySqlRowStream } from './mysql-row-stream.js';
import { buildSelect, renderSql } from './mysql-sql.js';

/** A read's statement, its rows rendered to JSON as they arrive. */
type RowStream = MySqlRowStream<RenderedRows>;

export interface MySqlSessionContext {
  readonly configName: string;
  /** MariaDB: its JSON alias is a text column with a json_valid check, found in discovery. */
  readonly mariadb: boolean;
  /** Options for the short-lived connection that kills a running statement. */
  readonly cancelOptions: ConnectionOptions;
  readonly cancelTimeoutMs: number;
}

/**
 * Safe text of a server or driver error: its message with any `'user'@'host'` replaced, and its
 * error code; never the SQL text mysql2 attaches.
 */
export function describeError(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message.replace(/'[^']*'@'[^']*'/g, '<login>').slice(0, 300) : 'unknown error';
  return typeof e?.code === 'string' && /^[A-Z0-9_]{3,60}$/.test(e.code) ? `${message} (${e.code})` : message;
}

/**
 * One open connection: discovery and row streams run one after the other on it.
 *
 * After an abort or an early stop the running statement (a read or a catalog query) is killed
 * (KILL QUERY from a second connection) and the rest of its result dropped; the session then
 * stays usable. Only when the kill cannot be delivered or the statement does not end in time
 * (ABORT_BUDGET_MS after an abort) is the connection cut, and every later call fails with
 * "Connection lost". A row larger than what the result may still hold fails the read with
 * ValueTooLargeError: refused from its packet header (the connection is cut, before mysql2 has
 * buffered it), and a value over it found in a parsed row stops the statement.
 *
 * A ranged read (an incremental one) runs in a read-only transaction of its own
 * (mysql-range-read.ts), which is always ended before the read is: committed after its last
 * batch, rolled back otherwise, or the connection is cut.
 */
export class MySqlSession extends EngineSession implements ConnectorSession {
  /** The statement currently streaming, if any: close() stops it rather than wait for it. */
  private active: RowStream | undefined;
  private readonly guard: RowSizeGuard | undefined;
  private readonly ranged: RangeReadSession = {
    run: (sql, signal, table) => this.statement(sql, signal, table),
    read: (request, signal) => this.readTable(request, signal),
    rollback: (aborted) => this.rollback(aborted),
  };

  constructor(
    private readonly connection: Connection,
    private readonly ctx: MySqlSessionContext,
  ) {
    super(ctx.configName, describeError);
    connection.on('error', (error: Error) => {
      this.lost ??= error;
    });
    connection.on('end', () => {
      this.lost ??= new Error('connection closed');
    });
    // Attached right after the session setup statement, i.e. at a packet boundary.
    const socket = (connection as unknown as { stream?: Readable }).stream;
    this.guard = socket === undefined ? undefined : mySqlPacketGuard(socket, (error) => this.refuse(error));
  }

  /**
   * Every packet of the three answers is charged to `budget` as its header arrives (the packet
   * guard sees them before mysql2 buffers them): past it the connection is cut and the discovery
   * fails with CatalogTooLargeError.
   */
  async discover(_schemas: readonly string[] | null, signal: AbortSignal, budget?: CatalogBudget): Promise<SchemaSnapshot> {
    this.assertUsable();
    const catalog = budget ?? defaultCatalogBudget(this.ctx.configName);
    this.guard?.armCatalog(catalog, (error) => this.sever(error));
    try {
      const columns = await this.catalog(COLUMNS_SQL, signal, catalog);
      const keys = await this.catalog(PRIMARY_KEYS_SQL, signal, catalog);
      const checks = this.ctx.mariadb ? await this.catalog(JSON_CHECKS_SQL, signal, catalog) : [];
      return toSnapshot(columns, keys, checks);
    } finally {
      this.guard?.disarmCatalog();
    }
  }

  readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    return request.range === undefined ? this.readTable(request, signal) : readRange(this.ranged, request, signal);
  }

  private async *readTable(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    signal.throwIfAborted();
    const table = request.table.key;
    this.assertUsable(table);
    const budget = request.budget ?? DEFAULT_READ_BUDGET;
    const sql = renderSql(buildSelect(request));
    this.guard?.arm(table, budget);
    const rows = new RenderedRowCollector(request.columns, budget, table, request.rowFrame);
    const stream = new MySqlRowStream(this.connection, sql, budget, table, rows);
    this.active = stream;
    try {
      for (;;) {
        const batch = await this.readBatch(stream, signal, table);
        if (batch.length === 0) return;
        for (const chunk of batch.chunks) {
          signal.throwIfAborted();
          // Closed under a consumer that still holds the iterator: no more rows.
          this.assertOpen(table);
          yield chunk;
        }
      }
    } finally {
      // Early stop, abort or failure while rows are still coming: end the statement. The guard
      // stays armed meanwhile: rows drained after the kill are not to be buffered whole either.
      await this.stop(stream, signal.aborted ? ABORT_BUDGET_MS : undefined);
      this.guard?.disarm();
      if (this.active === stream) this.active = undefined;
    }
  }

  /**
   * Idempotent and bounded: a stream the consumer left unfinished is stopped first, so closing is
   * prompt; whatever has not finished after CLOSE_TIMEOUT_MS is cut.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const active = this.active;
      if (this.lost !== undefined) {
        destroyConnection(this.connection);
        active?.abandon(this.lost);
        return;
      }
      const graceful = (async () => {
        if (active !== undefined) await this.stop(active, CLOSE_TIMEOUT_MS);
        await endConnection(this.connection, CLOSE_TIMEOUT_MS);
      })();
      await settleOrCut(graceful, CLOSE_TIMEOUT_MS, () => this.sever(new Error('session did not close in time'), active));
    })();
    return this.closing;
  }

  /** One catalog query, raced against the signal; an abort kills it on the server. */
  private catalog(sql: string, signal: AbortSignal, budget: CatalogBudget): Promise<unknown[][]> {
    return abortableRead(
      () => runQuery(this.connection, sql),
      signal,
      (read) => this.kill(read),
      (error) => budget.exceeded ?? this.discoveryFailure(error),
      () => this.sever(new Error('discovery could not be stopped in time; connection closed')),
    );
  }

  /** One statement of a read that returns a few rows at most, raced against the signal like a batch. */
  private async statement(sql: string, signal: AbortSignal, table: string): Promise<unknown[][]> {
    this.assertUsable(table);
    return abortableRead(
      () => runQuery(this.connection, sql),
      signal,
      (read) => this.kill(read),
      (error) => this.readFailure(error, table),
      () => this.sever(new Error('statement could not be stopped in time; connection closed')),
    );
  }

  /**
   * Ends a ranged read's transaction, within the abort budget after an abort and the close budget
   * otherwise. A ROLLBACK that fails or does not answer in time gets the connection cut, which
   * ends the transaction on the server too: the session is lost rather than left inside it. A
   * session already lost or closing has no transaction left to end.
   */
  private async rollback(aborted: boolean): Promise<void> {
    if (this.lost !== undefined || this.closing !== undefined) return;
    const rolledBack = runQuery(this.connection, ROLLBACK_SQL).then(
      () => true,
      () => false,
    );
    const settled = await settlesWithin(rolledBack, aborted ? ABORT_BUDGET_MS : CLOSE_TIMEOUT_MS);
    if (!settled || !(await rolledBack)) this.sever(new Error('the read could not end its transaction; connection closed'));
  }

  /** One batch, raced against the signal; an abort stops the statement on the server. */
  private readBatch(stream: RowStream, signal: AbortSignal, table: string): Promise<RenderedRows> {
    // Aborted between batches: the finally block of readTable stops the statement.
    return abortableRead(
      () => stream.next(),
      signal,
      () => this.stop(stream),
      (error) => this.readFailure(error, table),
      () => this.sever(new Error('statement could not be stopped in time; connection closed'), stream),
    );
  }

  /** A row refused from its packet header: the connection holds part of it and is cut. */
  private refuse(error: ValueTooLargeError): void {
    const stream = this.active;
    stream?.fail(error);
    this.sever(error, stream);
  }

  /** Cuts the socket: nothing more is read, the stream (if any) ends, and the session is lost. */
  private sever(reason: Error, stream?: RowStream): void {
    this.lost ??= reason;
    destroyConnection(this.connection);
    stream?.abandon(this.lost);
  }

  /**
   * KILL QUERY from a second connection, then a wait for `running` to end. If either fails, the
   * socket is cut so nothing keeps streaming into it (the session is then unusable).
   */
  private kill(running: Promise<unknown>, stream?: RowStream): Promise<void> {
    return cancelOrCut(killQuery(this.ctx.cancelOptions, this.connection.threadId, this.ctx.cancelTimeoutMs), running, () =>
      this.sever(new Error('statement could not be stopped; connection closed'), stream),
    );
  }

  /**
   * Ends a statement that is still producing rows: drop what keeps coming, kill it, wait for it to
   * end. With `timeoutMs` (an abort, a close) the connection is cut when that takes longer.
   */
  private async stop(stream: RowStream, timeoutMs?: number): Promise<void> {
    if (stream.isFinished) return;
    stream.discard();
    const stopping = this.kill(stream.finished, stream);
    if (timeoutMs === undefined) return stopping;
    await settleOrCut(stopping, timeoutMs, () =>
      this.sever(new Error('statement could not be stopped in time; connection closed'), stream),
    );
  }
}
