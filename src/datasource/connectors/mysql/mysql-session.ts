import type { Connection, ConnectionOptions } from 'mysql2';
import { DatasourceQueryError } from '../../datasource.error.js';
import { abortableRead } from '../abortable-read.js';
import type { ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../engine-connector.js';
import { destroyConnection, endConnection, killQuery, runQuery } from './mysql-client.js';
import { COLUMNS_SQL, JSON_CHECKS_SQL, PRIMARY_KEYS_SQL, toSnapshot } from './mysql-discovery.js';
import { MySqlRowStream } from './mysql-row-stream.js';
import { buildSelect, renderSql } from './mysql-sql.js';
import { createBatchRenderer, kindsForResult, type RawRow } from './mysql-value-encoders.js';

/** Rows per batch: big enough to amortise the pause/resume, small enough to keep memory flat. */
export const BATCH_ROWS = 2_000;
/** How long a stopped statement may take to end after the KILL before the socket is cut. */
const SETTLE_AFTER_KILL_MS = 2_000;
const CLOSE_TIMEOUT_MS = 2_000;

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
 * After an abort or an early stop the running statement is killed (KILL QUERY from a second
 * connection) and the rest of its result dropped; the session then stays usable. Only when the
 * kill cannot be delivered or the statement does not end within 2 s is the connection cut, and
 * every later call fails with "Connection lost".
 */
export class MySqlSession implements ConnectorSession {
  private lost: Error | undefined;
  private closing: Promise<void> | undefined;
  /** The statement currently streaming, if any: close() stops it rather than wait for it. */
  private active: MySqlRowStream | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly ctx: MySqlSessionContext,
  ) {
    connection.on('error', (error: Error) => {
      this.lost ??= error;
    });
    connection.on('end', () => {
      this.lost ??= new Error('connection closed');
    });
  }

  async discover(_schemas: readonly string[] | null): Promise<SchemaSnapshot> {
    this.assertUsable();
    try {
      const columns = await runQuery(this.connection, COLUMNS_SQL);
      const keys = await runQuery(this.connection, PRIMARY_KEYS_SQL);
      const checks = this.ctx.mariadb ? await runQuery(this.connection, JSON_CHECKS_SQL) : [];
      return toSnapshot(columns, keys, checks);
    } catch (error) {
      throw new DatasourceQueryError(this.ctx.configName, `Schema discovery failed: ${describeError(error)}`);
    }
  }

  async *readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    signal.throwIfAborted();
    const table = request.table.key;
    this.assertUsable(table);
    const sql = renderSql(buildSelect(request));
    const stream = new MySqlRowStream(this.connection, sql, BATCH_ROWS);
    this.active = stream;
    let render: ((rows: readonly RawRow[]) => RowBatch[]) | undefined;
    try {
      for (;;) {
        const rows = await this.readBatch(stream, signal, table);
        if (rows.length === 0) return;
        // Built on the first batch, when the server's column metadata is known.
        render ??= createBatchRenderer(request.columns, kindsForResult(request.columns, stream.resultFields));
        for (const chunk of render(rows)) {
          signal.throwIfAborted();
          // Closed under a consumer that still holds the iterator: no more rows.
          if (this.closing !== undefined) throw new DatasourceQueryError(this.ctx.configName, 'Session is closed', table);
          yield chunk;
        }
        if (rows.length < BATCH_ROWS) return;
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
      await endConnection(this.connection, CLOSE_TIMEOUT_MS);
    })();
    return this.closing;
  }

  private assertUsable(table?: string): void {
    if (this.closing !== undefined) throw new DatasourceQueryError(this.ctx.configName, 'Session is closed', table);
    if (this.lost !== undefined) {
      throw new DatasourceQueryError(this.ctx.configName, `Connection lost: ${describeError(this.lost)}`, table);
    }
  }

  /** One batch, raced against the signal; an abort stops the statement on the server. */
  private readBatch(stream: MySqlRowStream, signal: AbortSignal, table: string): Promise<RawRow[]> {
    // Aborted between batches: the finally block of readRows stops the statement.
    return abortableRead(
      () => stream.next(),
      signal,
      () => this.stop(stream),
      (error) => new DatasourceQueryError(this.ctx.configName, `Reading table "${table}" failed: ${describeError(error)}`, table),
    );
  }

  /**
   * Ends a statement that is still producing rows: drop what keeps coming, KILL QUERY from a
   * second connection, wait for the statement to end. If either fails, the socket is cut so
   * nothing keeps streaming into it (the session is then unusable).
   */
  private async stop(stream: MySqlRowStream): Promise<void> {
    if (stream.isFinished) return;
    stream.discard();
    const killed = await killQuery(this.ctx.cancelOptions, this.connection.threadId, this.ctx.cancelTimeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      stream.finished.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), killed ? SETTLE_AFTER_KILL_MS : 0);
      }),
    ]);
    clearTimeout(timer);
    if (!settled) {
      this.lost ??= new Error('statement could not be stopped; connection closed');
      destroyConnection(this.connection);
      stream.abandon(this.lost);
    }
  }
}
