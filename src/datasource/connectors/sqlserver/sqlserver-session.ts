import { DatasourceQueryError } from '../../datasource.error.js';
import { abortableRead } from '../abortable-read.js';
import type { ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../engine-connector.js';
import { closePool, type ConnectedPool } from './sqlserver-client.js';
import { discoveryStatement, toSnapshot, type DiscoveryRow } from './sqlserver-discovery.js';
import { prepareRequest, SqlServerRowStream } from './sqlserver-row-stream.js';
import { buildSelect } from './sqlserver-sql.js';
import { createBatchRenderer, type RawRow } from './sqlserver-value-encoders.js';

/** Rows per batch: big enough to amortise the pause/resume, small enough to keep memory flat. */
export const BATCH_ROWS = 2_000;
/** How long a cancelled statement may take to end before the connection is cut (tedious gives up after 3 s). */
const SETTLE_AFTER_CANCEL_MS = 4_000;
const CLOSE_TIMEOUT_MS = 2_000;

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
 * After an abort or an early stop the running statement is cancelled on the server (a TDS
 * attention on the same connection) and the rest of its result dropped; the session then stays
 * usable. Only when the server does not acknowledge the cancel in time is the connection cut,
 * and every later call fails with "Connection lost" (as when the server drops it).
 */
export class SqlServerSession implements ConnectorSession {
  private lost: Error | undefined;
  private closing: Promise<void> | undefined;
  /** The statement currently streaming, if any: close() stops it rather than wait for it. */
  private active: SqlServerRowStream | undefined;

  constructor(
    private readonly connected: ConnectedPool,
    private readonly ctx: SqlServerSessionContext,
  ) {
    connected.watch.onLost = (error) => {
      if (this.closing === undefined) this.lost ??= error;
    };
  }

  /** The server session id (`@@SPID`) of this connection. */
  get spid(): number {
    return this.connected.spid;
  }

  async discover(schemas: readonly string[] | null): Promise<SchemaSnapshot> {
    this.assertUsable();
    const names = schemas === null ? null : schemas.length > 0 ? [...new Set(schemas)] : [this.ctx.defaultSchema];
    const statement = discoveryStatement(names);
    try {
      const result = await prepareRequest(this.connected.pool, statement, false).query<DiscoveryRow>(statement.text);
      return toSnapshot(result.recordset, this.ctx.defaultSchema);
    } catch (error) {
      throw new DatasourceQueryError(this.ctx.configName, `Schema discovery failed: ${describeError(error)}`);
    }
  }

  async *readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    signal.throwIfAborted();
    const table = request.table.key;
    this.assertUsable(table);
    const render = createBatchRenderer(request.columns);
    const stream = new SqlServerRowStream(this.connected.pool, buildSelect(request), BATCH_ROWS);
    this.active = stream;
    try {
      for (;;) {
        // Closed or lost while the consumer held a batch: the statement was stopped, no more rows.
        this.assertUsable(table);
        const rows = await this.readBatch(stream, signal, table);
        if (rows.length === 0) return;
        for (const chunk of render(rows)) {
          signal.throwIfAborted();
          // Closed under a consumer that still holds the iterator: no more rows.
          if (this.closing !== undefined) throw new DatasourceQueryError(this.ctx.configName, 'Session is closed', table);
          yield chunk;
        }
      }
    } finally {
      // Early stop, abort or failure while rows are still coming: end the statement.
      await this.stop(stream);
      if (this.active === stream) this.active = undefined;
    }
  }

  /** Idempotent. A stream the consumer left unfinished is stopped first, so closing is prompt. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const active = this.active;
      if (active !== undefined && this.lost === undefined) await this.stop(active);
      await closePool(this.connected, CLOSE_TIMEOUT_MS);
    })();
    return this.closing;
  }

  private assertUsable(table?: string): void {
    if (this.closing !== undefined) throw new DatasourceQueryError(this.ctx.configName, 'Session is closed', table);
    if (this.lost !== undefined) {
      throw new DatasourceQueryError(this.ctx.configName, `Connection lost: ${describeError(this.lost)}`, table);
    }
  }

  /** One batch, raced against the signal; an abort cancels the statement on the server. */
  private readBatch(stream: SqlServerRowStream, signal: AbortSignal, table: string): Promise<RawRow[]> {
    // Aborted between batches: the finally block of readRows stops the statement.
    return abortableRead(
      () => stream.next(),
      signal,
      async (read) => {
        read.catch(() => undefined);
        await this.stop(stream);
      },
      (error) => new DatasourceQueryError(this.ctx.configName, `Reading table "${table}" failed: ${describeError(error)}`, table),
    );
  }

  /**
   * Ends a statement that is still producing rows: cancel it on the server and wait for the
   * acknowledgement. If that does not come in time, the connection is cut so nothing keeps
   * streaming into it (the session is then unusable).
   */
  private async stop(stream: SqlServerRowStream): Promise<void> {
    if (stream.isFinished) return;
    stream.cancel();
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      stream.finished.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), SETTLE_AFTER_CANCEL_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!settled) {
      this.lost ??= new Error('statement could not be cancelled; connection closed');
      this.connected.watch.cut();
      stream.abandon(this.lost);
    }
  }
}
