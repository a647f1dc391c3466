import pg from 'pg';
import Cursor from 'pg-cursor';
import type { CatalogTooLargeError } from '../../errors/engine-errors.js';
import type { DatasourceQueryError } from '../../errors/datasource-errors.js';
import { type CatalogBudget, defaultCatalogBudget } from '../shared/catalog-budget.js';
import { ABORT_BUDGET_MS, abortableRead } from '../shared/abortable-read.js';
import type { ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../shared/engine-connector.js';
import { CLOSE_TIMEOUT_MS, EngineSession } from '../shared/engine-session.js';
import { FetchSizer } from '../shared/fetch-sizer.js';
import { DEFAULT_READ_BUDGET, type ValueTooLargeError } from '../shared/read-budget.js';
import { settleOrCut } from '../shared/settle.js';
import { cancelOrCut } from '../shared/statement-cancel.js';
import { cancelBackend, destroyClient, endClient, TEXT_TYPES } from './postgres-client.js';
import { CatalogQuery } from './postgres-catalog-query.js';
import { PostgresSnapshotBuilder } from './postgres-discovery.js';
import { CopyRefusedError, endTransaction, readWithCopy, type CopySessionLink } from './postgres-copy-read.js';
import { PostgresRowGauge } from './postgres-row-gauge.js';
import { buildCopy, buildSelect } from './postgres-sql.js';
import { readPostgresRange, type RangeSessionLink } from './postgres-range-read.js';
import { createBatchRenderer, type RawRow } from './postgres-value-encoders.js';

export interface PostgresSessionContext {
  readonly configName: string;
  readonly defaultSchema: string;
  readonly backendPid: number;
  /** Options for the short-lived connection that cancels a running statement. */
  readonly cancelConfig: pg.ClientConfig;
  readonly cancelTimeoutMs: number;
  /** The cancel connection follows the same plaintext-password rule as the session's. */
  readonly refusePlaintextPassword?: boolean;
  /** `server_encoding`: SQL_ASCII databases hold bytes that may not be UTF-8. */
  readonly serverEncoding?: string;
  /** Whether reads go through COPY, and where a refusal is remembered. Absent: cursor only. */
  readonly copy?: CopyPreference;
}

/** The read path of one connection record, shared by its sessions (see PostgresConnector). */
export interface CopyPreference {
  /** Read at every read: a refusal on one session holds for the others at once. */
  readonly enabled: boolean;
  /** The server refused COPY: this connection reads with a cursor from now on. */
  refused(error: CopyRefusedError): void;
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

/**
 * One open connection: discovery and row streams run one after the other on it. Rows come through
 * `COPY (SELECT …) TO STDOUT` (see readWithCopy) unless the connection's server refused it once;
 * then, and for reads COPY cannot express, through a pg-cursor.
 *
 * An abort cancels the running statement from a second connection (pg_cancel_backend) and the
 * session stays usable; when that has not worked within ABORT_BUDGET_MS the socket is cut and
 * every later call fails with "Connection lost". Each fetch asks for as many rows as fit the read
 * budget's bytes, and a row larger than what the result may still hold cuts the connection as
 * soon as its header arrives (ValueTooLargeError), before pg has buffered it.
 */
export class PostgresSession extends EngineSession implements ConnectorSession {
  /** Set when the gauge refused a row or a catalog: the call fails with it rather than with the cut connection. */
  private tooLarge: ValueTooLargeError | CatalogTooLargeError | undefined;
  /** Follows the socket between statements; a COPY takes the socket over, so it is detached then. */
  private gauge: PostgresRowGauge | undefined;
  private readonly copyLink: CopySessionLink;
  private readonly rangeLink: RangeSessionLink;
  private readonly catalog: CatalogQuery;
  /** A statement was cancelled or failed on it once: it is never handed to another caller. */
  private disturbed = false;

  constructor(
    private readonly client: pg.Client,
    private readonly ctx: PostgresSessionContext,
  ) {
    super(ctx.configName, describe);
    client.on('error', (error) => {
      this.lost ??= error;
    });
    client.on('end', () => {
      this.lost ??= new Error('connection closed');
    });
    this.catalog = new CatalogQuery(client);
    this.copyLink = {
      client,
      bytesMayNotBeUtf8: ctx.serverEncoding === 'SQL_ASCII',
      isLost: () => this.lost !== undefined,
      interrupt: (read) => this.interrupt(read),
      sever: (reason) => this.sever(reason),
      failure: (error, table) => this.readFailure(error, table),
    };
    this.rangeLink = {
      query: (text, values, signal, table) => this.runStatement(text, values, signal, table),
      readInTransaction: (request, signal) => this.readPlain(request, signal, true),
      rollback: () => endTransaction(this.copyLink),
    };
  }

  /**
   * Catalog rows are grouped into the snapshot as they arrive (pg keeps none of them), and every
   * message of the answer is charged to `budget` as its header arrives: past it the connection is
   * cut and the discovery fails with CatalogTooLargeError.
   */
  async discover(schemas: readonly string[] | null, signal: AbortSignal, budget?: CatalogBudget): Promise<SchemaSnapshot> {
    this.assertUsable();
    const catalog = budget ?? defaultCatalogBudget(this.ctx.configName);
    const names = schemas === null ? null : schemas.length > 0 ? [...schemas] : [this.ctx.defaultSchema];
    const builder = new PostgresSnapshotBuilder(this.ctx.defaultSchema);
    const gauge = this.attachGauge();
    gauge.armCatalog(catalog, (error) => {
      this.tooLarge = error;
      this.sever(error);
    });
    try {
      await abortableRead(
        () => this.catalog.stream(names, (row) => builder.add(row)),
        signal,
        (read) => this.interrupt(read),
        (error) => catalog.exceeded ?? this.discoveryFailure(error),
        () => this.sever(new Error('discovery could not be cancelled in time; connection closed')),
      );
    } finally {
      gauge.disarmCatalog();
    }
    return builder.snapshot();
  }

  async *readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    signal.throwIfAborted();
    this.assertUsable(request.table.key);
    if (request.range) yield* readPostgresRange(this.rangeLink, request, signal);
    else yield* this.readPlain(request, signal, false);
  }

  /**
   * COPY unless this connection's server refused it, else a cursor. Inside a transaction of its
   * own caller's, a savepoint keeps a refused COPY from aborting that transaction (and its snapshot).
   */
  private async *readPlain(request: TableReadRequest, signal: AbortSignal, inTransaction: boolean): AsyncIterable<RowBatch> {
    const table = request.table.key;
    const copy = this.ctx.copy?.enabled === true ? buildCopy(request) : null;
    if (copy !== null) {
      if (inTransaction) await this.runStatement('SAVEPOINT fetcher_copy', [], signal, table);
      this.detachGauge();
      try {
        yield* readWithCopy(this.copyLink, request, copy, signal);
        return;
      } catch (error) {
        if (!(error instanceof CopyRefusedError)) throw error;
        this.ctx.copy?.refused(error);
        if (inTransaction) await this.runStatement('ROLLBACK TO SAVEPOINT fetcher_copy', [], signal, table);
      }
    }
    yield* this.readWithCursor(request, signal);
  }

  /** One short statement (a transaction's BEGIN, a bound), cancelled on the server if the signal aborts. */
  private runStatement(text: string, values: readonly unknown[], signal: AbortSignal, table: string): Promise<RawRow[]> {
    this.assertUsable(table);
    return abortableRead(
      async () => {
        const config: pg.QueryArrayConfig = { text, values: [...values], rowMode: 'array', types: TEXT_TYPES };
        return (await this.client.query(config)).rows as RawRow[];
      },
      signal,
      (read) => this.interrupt(read),
      (error) => this.readFailure(error, table),
      () => this.sever(new Error('statement could not be cancelled in time; connection closed')),
    );
  }

  private async *readWithCursor(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    const table = request.table.key;
    this.assertUsable(table);
    const budget = request.budget ?? DEFAULT_READ_BUDGET;
    const gauge = this.attachGauge();
    const statement = buildSelect(request);
    const render = createBatchRenderer(request.columns, request.rowFrame);
    const sizer = new FetchSizer(budget);
    const cursor = this.client.query(new Cursor<RawRow>(statement.text, statement.values, { rowMode: 'array', types: TEXT_TYPES }));
    const stream: CursorStream = { cursor, failed: false };
    gauge.arm(table, budget);
    try {
      for (;;) {
        const asked = sizer.next;
        const before = gauge.rowBytes;
        const rows = await this.readBatch(stream, asked, signal, table);
        sizer.record(rows.length, gauge.rowBytes - before);
        for (const chunk of render(rows)) {
          signal.throwIfAborted();
          yield chunk;
        }
        // Fewer rows than asked for means the portal is exhausted: no need for an empty round trip.
        if (rows.length < asked) return;
      }
    } finally {
      gauge.disarm();
      await this.closeCursor(stream, signal.aborted ? ABORT_BUDGET_MS : CLOSE_TIMEOUT_MS);
    }
  }

  /** Idempotent and bounded: a session already lost is cut at once, a live one gets CLOSE_TIMEOUT_MS to say goodbye. */
  close(): Promise<void> {
    if (this.closing === undefined) {
      if (this.lost !== undefined) {
        destroyClient(this.client);
        this.closing = Promise.resolve();
      } else {
        this.closing = endClient(this.client, CLOSE_TIMEOUT_MS);
      }
    }
    return this.closing;
  }

  /** One cursor read of `rows` rows, raced against the signal; an abort cancels the statement on the server. */
  private readBatch(stream: CursorStream, rows: number, signal: AbortSignal, table: string): Promise<RawRow[]> {
    // Aborted between reads: nothing runs on the server, closing the portal is enough.
    return abortableRead(
      () =>
        stream.cursor.read(rows).catch((error: unknown) => {
          stream.failed = true;
          throw error;
        }),
      signal,
      (read) => this.interrupt(read),
      (error) => this.tooLarge ?? this.readFailure(error, table),
      () => this.sever(new Error('statement could not be cancelled in time; connection closed')),
    );
  }

  /** The gauge of this socket, attached now if it is not yet: only between statements, at a message boundary. */
  private attachGauge(): PostgresRowGauge {
    return (this.gauge ??= new PostgresRowGauge(this.client.connection.stream, (error) => {
      this.tooLarge = error;
      this.sever(error);
    }));
  }

  /** The discovery statement, its rows handed to `onRow` one by one as pg parses them. */
  private detachGauge(): void {
    this.gauge?.detach();
    this.gauge = undefined;
  }

  /**
   * `SELECT 1` within the signal; it rejects unless the server answered and left the session
   * idle outside any transaction. One that does not answer in time is cut.
   */
  async ping(signal: AbortSignal): Promise<void> {
    this.assertUsable();
    await abortableRead(
      () => this.client.query({ text: 'SELECT 1', rowMode: 'array' }),
      signal,
      async () => this.sever(new Error('no answer to a ping; connection closed')),
      (error) => this.readFailure(error, '(ping)'),
      () => undefined,
    );
    if (this.client.getTransactionStatus() !== 'I') throw new Error('the session is inside a transaction');
  }

  /** Idle outside any transaction, nothing queued, nothing ever cancelled, cut or failed on it. */
  get reusable(): boolean {
    const client = this.client as pg.Client & { readonly readyForQuery?: boolean };
    return (
      this.lost === undefined &&
      this.closing === undefined &&
      !this.disturbed &&
      this.tooLarge === undefined &&
      client.readyForQuery === true &&
      client.getTransactionStatus() === 'I'
    );
  }

  protected override readFailure(error: unknown, table: string): Error {
    this.disturbed = true;
    return super.readFailure(error, table);
  }

  protected override discoveryFailure(error: unknown): DatasourceQueryError {
    this.disturbed = true;
    return super.discoveryFailure(error);
  }

  /** Cuts the socket: nothing more is read, and the session is lost. */
  private sever(reason: Error): void {
    this.disturbed = true;
    this.lost ??= reason;
    destroyClient(this.client);
  }

  /**
   * Stops the running statement: a cancel from a second connection, then a short wait for the
   * read to fail with "canceling statement". If either does not happen, the socket is cut so
   * nothing keeps waiting on it (the session is then unusable).
   */
  private interrupt(read: Promise<unknown>): Promise<void> {
    this.disturbed = true;
    const { cancelConfig, backendPid, cancelTimeoutMs, refusePlaintextPassword } = this.ctx;
    return cancelOrCut(cancelBackend(cancelConfig, backendPid, cancelTimeoutMs, refusePlaintextPassword), read, () =>
      this.sever(new Error('statement could not be cancelled; connection closed')),
    );
  }

  /**
   * Closes the portal so the statement stops on the server. Not after a failed read: the server
   * has already ended the statement, pg-cursor has sent Sync, and a Close would wait for a
   * ReadyForQuery that never comes.
   */
  private async closeCursor(stream: CursorStream, timeoutMs: number): Promise<void> {
    if (this.lost !== undefined || stream.failed) return;
    await settleOrCut(stream.cursor.close(), timeoutMs, () => this.sever(new Error('cursor did not close; connection closed')));
  }
}
