import type pg from 'pg';
import Cursor from 'pg-cursor';
import { DatasourceQueryError } from '../../datasource.error.js';
import { abortableRead } from '../abortable-read.js';
import type { ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../engine-connector.js';
import { cancelBackend, destroyClient, endClient, TEXT_TYPES } from './postgres-client.js';
import { DISCOVERY_SQL, toSnapshot } from './postgres-discovery.js';
import { buildSelect } from './postgres-sql.js';
import { createBatchRenderer, type RawRow } from './postgres-value-encoders.js';

/** Rows per cursor read: big enough to amortise round trips, small enough to keep memory flat. */
export const BATCH_ROWS = 2_000;
/** How long an aborted read may take to settle after the cancel before the socket is cut. */
const SETTLE_AFTER_CANCEL_MS = 2_000;
const CLOSE_TIMEOUT_MS = 2_000;

export interface PostgresSessionContext {
  readonly configName: string;
  readonly defaultSchema: string;
  readonly backendPid: number;
  /** Options for the short-lived connection that cancels a running statement. */
  readonly cancelConfig: pg.ClientConfig;
  readonly cancelTimeoutMs: number;
  /** The cancel connection follows the same plaintext-password rule as the session's. */
  readonly refusePlaintextPassword?: boolean;
}

interface CursorStream {
  readonly cursor: Cursor<RawRow>;
  /** A read was rejected: the statement is over on the server. */
  failed: boolean;
}

/** Safe text of a server or driver error: its primary message and SQLSTATE, nothing else. */
function describe(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message.slice(0, 300) : 'unknown error';
  return typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? `${message} (SQLSTATE ${e.code})` : message;
}

/** One open connection: discovery and row streams run one after the other on it. */
export class PostgresSession implements ConnectorSession {
  private lost: Error | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly client: pg.Client,
    private readonly ctx: PostgresSessionContext,
  ) {
    client.on('error', (error) => {
      this.lost ??= error;
    });
    client.on('end', () => {
      this.lost ??= new Error('connection closed');
    });
  }

  async discover(schemas: readonly string[] | null): Promise<SchemaSnapshot> {
    this.assertUsable();
    const names = schemas === null ? null : schemas.length > 0 ? [...schemas] : [this.ctx.defaultSchema];
    try {
      const result = await this.client.query<(string | null)[]>({ text: DISCOVERY_SQL, values: [names], rowMode: 'array' });
      return toSnapshot(result.rows, this.ctx.defaultSchema);
    } catch (error) {
      throw new DatasourceQueryError(this.ctx.configName, `Schema discovery failed: ${describe(error)}`);
    }
  }

  async *readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    signal.throwIfAborted();
    this.assertUsable(request.table.key);
    const statement = buildSelect(request);
    const render = createBatchRenderer(request.columns);
    const cursor = this.client.query(
      new Cursor<RawRow>(statement.text, statement.values, { rowMode: 'array', types: TEXT_TYPES }),
    );
    const stream: CursorStream = { cursor, failed: false };
    try {
      for (;;) {
        const rows = await this.readBatch(stream, signal, request.table.key);
        for (const chunk of render(rows)) {
          signal.throwIfAborted();
          yield chunk;
        }
        // A short batch means the portal is exhausted: no need for an empty round trip.
        if (rows.length < BATCH_ROWS) return;
      }
    } finally {
      await this.closeCursor(stream);
    }
  }

  close(): Promise<void> {
    this.closing ??= endClient(this.client, CLOSE_TIMEOUT_MS);
    return this.closing;
  }

  private assertUsable(table?: string): void {
    if (this.closing !== undefined) throw new DatasourceQueryError(this.ctx.configName, 'Session is closed', table);
    if (this.lost !== undefined) {
      throw new DatasourceQueryError(this.ctx.configName, `Connection lost: ${describe(this.lost)}`, table);
    }
  }

  /** One cursor read, raced against the signal; an abort cancels the statement on the server. */
  private readBatch(stream: CursorStream, signal: AbortSignal, table: string): Promise<RawRow[]> {
    // Aborted between reads: nothing runs on the server, closing the portal is enough.
    return abortableRead(
      () =>
        stream.cursor.read(BATCH_ROWS).catch((error: unknown) => {
          stream.failed = true;
          throw error;
        }),
      signal,
      (read) => this.interrupt(read),
      (error) => new DatasourceQueryError(this.ctx.configName, `Reading table "${table}" failed: ${describe(error)}`, table),
    );
  }

  /**
   * Stops the running statement: a cancel from a second connection, then a short wait for the
   * read to fail with "canceling statement". If either does not happen, the socket is cut so
   * nothing keeps waiting on it (the session is then unusable).
   */
  private async interrupt(read: Promise<unknown>): Promise<void> {
    const settled = read.then(
      () => true,
      () => true,
    );
    const cancelled = await cancelBackend(this.ctx.cancelConfig, this.ctx.backendPid, this.ctx.cancelTimeoutMs, this.ctx.refusePlaintextPassword);
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      settled,
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), cancelled ? SETTLE_AFTER_CANCEL_MS : 0);
      }),
    ]);
    clearTimeout(timer);
    if (!done) {
      this.lost ??= new Error('statement could not be cancelled; connection closed');
      destroyClient(this.client);
    }
  }

  /**
   * Closes the portal so the statement stops on the server. Not after a failed read: the server
   * has already ended the statement, pg-cursor has sent Sync, and a Close would wait for a
   * ReadyForQuery that never comes.
   */
  private async closeCursor(stream: CursorStream): Promise<void> {
    if (this.lost !== undefined || stream.failed) return;
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      stream.cursor.close().then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!closed) {
      this.lost ??= new Error('cursor did not close; connection closed');
      destroyClient(this.client);
    }
  }
}
