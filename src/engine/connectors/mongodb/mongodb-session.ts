import { once } from 'node:events';
import type { ClientSession, Db, Document, MongoClient } from 'mongodb';
import { ABORT_BUDGET_MS, abortableRead } from '../shared/abortable-read.js';
import { type CatalogBudget, defaultCatalogBudget } from '../shared/catalog-budget.js';
import {
  type ConnectorSession,
  JSON_ROW_FRAME,
  type RowBatch,
  type SchemaSnapshot,
  type TableReadRequest,
} from '../shared/engine-connector.js';
import { CLOSE_TIMEOUT_MS, EngineSession } from '../shared/engine-session.js';
import { DEFAULT_READ_BUDGET, ValueTooLargeError } from '../shared/read-budget.js';
import { RENDER_CHUNK_CHARS } from '../shared/row-batch-renderer.js';
import { settlesWithin } from '../shared/settle.js';
import { discoverDatabase } from './mongodb-discovery.js';
import { firstBatchDocs, MongoDocReader, RAW_DOCUMENTS } from './mongodb-doc-reader.js';
import { buildFind, createDocumentRenderer } from './mongodb-query.js';
import { type BoundFind, readRange } from './mongodb-range-read.js';

export { RENDER_CHUNK_CHARS };
/** Documents taken from the cursor's received batch at a time (no I/O involved). */
const DRAIN_DOCS = 64;
/**
 * close()'s wait after an abort stopped an operation in flight: the server may be why it had to
 * be stopped, and what close still sends (endSessions, on a new connection if the abort dropped
 * the last one) would wait for a server that does not answer; the cursors are already killed.
 */
const CLOSE_AFTER_INTERRUPT_MS = 250;

export interface MongoSessionContext {
  readonly configName: string;
}

/**
 * Safe text of a server or driver error: its message and code name. A server's "not authorized
 * … to execute command { find: …, filter: … }" echoes the command, filter values included:
 * everything from the first ` {` is cut.
 */
export function describeError(error: unknown): string {
  const e = error as { message?: unknown; codeName?: unknown } | null;
  let message = typeof e?.message === 'string' && e.message !== '' ? e.message : 'unknown error';
  const brace = message.indexOf(' {');
  if (brace >= 0) message = message.slice(0, brace) + ' …';
  message = message.slice(0, 300);
  return typeof e?.codeName === 'string' && /^[A-Za-z0-9_]{2,60}$/.test(e.codeName) ? `${message} (${e.codeName})` : message;
}

/** The driver fails the operation in flight on an abort by itself: waiting for that is the interrupt. */
const settled = (read: Promise<unknown>): Promise<void> =>
  read.then(
    () => undefined,
    () => undefined,
  );

/** The driver's topology, which alone can drop every socket at once (MongoClient.close waits on the server). */
type ClosableTopology = { topology?: { close(): void } };

/**
 * One MongoClient on the datasource's database. Discovery and reads hand the caller's signal to
 * the driver: an abort fails a command in flight at once and closes the connection it was on
 * (its answer can no longer be told apart), and open cursors are killed (killCursors, which also
 * ends a getMore in flight on the server), so the session stays usable. When what was in flight
 * has not ended within ABORT_BUDGET_MS, every socket is dropped and the session is lost.
 */
export class MongoDbSession extends EngineSession implements ConnectorSession {
  /** An abort stopped an operation in flight (see CLOSE_AFTER_INTERRUPT_MS). */
  private interrupted = false;
  /** Whether the server takes snapshot reads, once a range read has asked. */
  private snapshots: Promise<boolean> | undefined;

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    ctx: MongoSessionContext,
  ) {
    super(ctx.configName, describeError);
  }

  protected override get readsFrom(): string {
    return 'collection';
  }

  /**
   * The collection names and field paths discovery keeps are charged to `budget` as they are
   * found: past it every socket is dropped and the discovery fails with CatalogTooLargeError.
   */
  async discover(_schemas: readonly string[] | null, signal: AbortSignal, budget?: CatalogBudget): Promise<SchemaSnapshot> {
    this.assertUsable();
    const catalog = budget ?? defaultCatalogBudget(this.configName);
    return abortableRead(
      () => discoverDatabase(this.db, signal, catalog),
      signal,
      (read) => {
        this.interrupted = true;
        return settled(read);
      },
      (error) => {
        if (catalog.exceeded === undefined) return this.discoveryFailure(error);
        this.sever(new Error('the schema catalog passed its byte budget; connection closed'));
        return catalog.exceeded;
      },
      () => this.sever(new Error('discovery did not stop in time; connection closed')),
    );
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
      snapshotReads: (s) => this.snapshotReads(s, table),
      startSnapshot: () => this.client.startSession({ snapshot: true }),
      bound: (find, session, s) => this.bound(request, find, session, s),
      read: (plain, s, session) => this.readTable(plain, s, session),
      end: async (session) => void (await settlesWithin(session.endSession(), CLOSE_TIMEOUT_MS)),
      failure: (error) => this.readFailure(error, table),
    });
  }

  /** `session`: a range's snapshot, which every command of the read joins. */
  private async *readTable(request: TableReadRequest, signal: AbortSignal, session?: ClientSession): AsyncGenerator<RowBatch> {
    const table = request.table.key;
    this.assertUsable(table);
    const budget = request.budget ?? DEFAULT_READ_BUDGET;
    const plan = buildFind(request);
    const render = createDocumentRenderer(plan.fields);
    // With the signal the driver kills the cursor itself on an abort (and fails a find in
    // flight); closing it here as well would end its session before that killCursors is sent.
    const cursor = this.db.collection(plan.collection).find<Document>(plan.filter, {
      ...plan.options,
      batchSize: firstBatchDocs(budget),
      ...RAW_DOCUMENTS,
      signal,
      ...(session ? { session } : {}),
    });
    // The cursor's own close (after an abort: the killCursors the driver sends) must go out
    // before a session it does not own is ended.
    const closed = session === undefined ? undefined : once(cursor, 'close');
    closed?.catch(() => undefined);
    const reader = new MongoDocReader(cursor, budget, table);
    // A row's close is written with what follows it (the next row's separator and open, or the
    // chunk's end): one concatenation per document, whatever the frame.
    const frame = request.rowFrame ?? JSON_ROW_FRAME;
    const between = frame.close + frame.separator + frame.open;
    let json = '';
    let count = 0;
    try {
      for (;;) {
        // What the last batch brought is rendered without I/O; the next getMore is only sent
        // when it is used up and the consumer asked for more: that is the backpressure.
        let docs = this.buffered(reader, table);
        if (docs.length === 0) {
          const doc = await this.next(reader, signal, table);
          if (doc === null) break;
          docs = [doc];
        }
        for (const doc of docs) {
          json += (count === 0 ? frame.open : between) + render(doc);
          count++;
          if (json.length >= RENDER_CHUNK_CHARS) {
            const chunk: RowBatch = { json: Buffer.from(json + frame.close, 'utf8'), rowCount: count };
            json = '';
            count = 0;
            yield chunk;
            signal.throwIfAborted();
            this.assertUsable(table);
          }
        }
      }
      if (count > 0) yield { json: Buffer.from(json + frame.close, 'utf8'), rowCount: count };
    } finally {
      // Early stop or failure: kill the server cursor (a no-op once it is exhausted).
      if (!signal.aborted) await settlesWithin(cursor.close(), CLOSE_TIMEOUT_MS);
      else if (closed !== undefined) await settlesWithin(closed, ABORT_BUDGET_MS);
    }
  }

  /**
   * A replica set member or a mongos (a standalone server has no majority-committed history to
   * read at a cluster time) of MongoDB 5.0 or later (wire version 13), asked once per session.
   */
  private async snapshotReads(signal: AbortSignal, table: string): Promise<boolean> {
    this.snapshots ??= abortableRead(
      () => this.db.command({ hello: 1 }),
      signal,
      settled,
      (error) => this.readFailure(error, table),
    ).then((hello) => (typeof hello.setName === 'string' || hello.msg === 'isdbgrid') && Number(hello.maxWireVersion) >= 13);
    // A failed or aborted question is asked again next time.
    this.snapshots.catch(() => (this.snapshots = undefined));
    return this.snapshots;
  }

  /** The range's bound document: one find, in the snapshot session when there is one. */
  private bound(
    request: TableReadRequest,
    find: BoundFind,
    session: ClientSession | undefined,
    signal: AbortSignal,
  ): Promise<Document | null> {
    const table = request.table.key;
    this.assertUsable(table);
    return abortableRead(
      () => this.db.collection(request.table.name).findOne(find.filter, { ...find.options, signal, ...(session ? { session } : {}) }),
      signal,
      (read) => {
        this.interrupted = true;
        return settled(read);
      },
      (error) => {
        this.assertUsable(table);
        return this.readFailure(error, table);
      },
      () => this.sever(new Error('read did not stop; connection closed')),
    );
  }

  /**
   * Idempotent and bounded: active cursors are closed by the driver, sessions ended; when that
   * has not finished in time (a silent server) every socket is dropped.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const closed = this.client.close();
      const grace = this.interrupted ? CLOSE_AFTER_INTERRUPT_MS : CLOSE_TIMEOUT_MS;
      if (this.lost !== undefined || !(await settlesWithin(closed, grace))) this.dropSockets();
    })();
    return this.closing;
  }

  /** Every socket of the client is dropped; the session is lost. */
  private sever(reason: Error): void {
    this.lost ??= reason;
    this.dropSockets();
  }

  private dropSockets(): void {
    (this.client as unknown as ClosableTopology).topology?.close();
  }

  /** Documents already received; decoding happens here (a BSON error is a query error too). */
  private buffered(reader: MongoDocReader, table: string): Document[] {
    try {
      return reader.buffered(DRAIN_DOCS);
    } catch (error) {
      throw this.readFailure(error, table);
    }
  }

  /**
   * The next document, raced against the signal: an abort while a find or getMore is in flight
   * returns at once, without waiting for the server. The driver fails a find in flight (dropping
   * its connection) and kills the cursor, which ends a getMore in flight on the server; if that
   * read has still not settled after ABORT_BUDGET_MS, the server ignored it and the sockets are cut.
   */
  private next(reader: MongoDocReader, signal: AbortSignal, table: string): Promise<Document | null> {
    return abortableRead(
      () => reader.next(),
      signal,
      (read) => {
        this.interrupted = true;
        void settlesWithin(read, ABORT_BUDGET_MS).then((done) => done || this.sever(new Error('read did not stop; connection closed')));
        return Promise.resolve();
      },
      (error) => {
        if (error instanceof ValueTooLargeError) return error;
        // A read the session's close or loss ended fails as such, not as a query error.
        this.assertUsable(table);
        return this.readFailure(error, table);
      },
    );
  }
}
