import type { Db, Document, FindCursor, MongoClient } from 'mongodb';
import { DatasourceQueryError } from '../../datasource.error.js';
import type { ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../engine-connector.js';
import { discoverDatabase } from './mongodb-discovery.js';
import { RENDER_CHUNK_CHARS } from '../row-batch-renderer.js';
import { buildFind, createDocumentRenderer } from './mongodb-query.js';

export { RENDER_CHUNK_CHARS };
/** Documents taken from the cursor's received batch at a time (no I/O involved). */
const DRAIN_DOCS = 64;
const CLOSE_TIMEOUT_MS = 2_000;
const ABORTED = Symbol('aborted');

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

/**
 * One MongoClient on the datasource's database. Reads run through find cursors: an abort makes
 * the pending read reject with `signal.reason` at once, and an abort or early stop (the consumer
 * returns) kills the server cursor in `finally`.
 */
export class MongoDbSession implements ConnectorSession {
  private closing: Promise<void> | undefined;

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly ctx: MongoSessionContext,
  ) {}

  async discover(_schemas: readonly string[] | null): Promise<SchemaSnapshot> {
    this.assertOpen();
    try {
      return await discoverDatabase(this.db);
    } catch (error) {
      throw new DatasourceQueryError(this.ctx.configName, `Schema discovery failed: ${describeError(error)}`);
    }
  }

  async *readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    signal.throwIfAborted();
    const table = request.table.key;
    this.assertOpen(table);
    const plan = buildFind(request);
    const render = createDocumentRenderer(plan.fields);
    // The signal is not handed to the driver: on abort it would close the cursor from its own
    // listener while our `finally` closes it too, and the second close ends the session before
    // the first one's killCursors is sent (the server cursor then lives on until it times out).
    const cursor = this.db.collection(plan.collection).find<Document>(plan.filter, plan.options);
    let json = '';
    let count = 0;
    try {
      for (;;) {
        // What the last batch brought is rendered without I/O; the next getMore is only sent
        // when it is used up and the consumer asked for more: that is the backpressure.
        let docs = this.buffered(cursor, table);
        if (docs.length === 0) {
          const doc = await this.next(cursor, signal, table);
          if (doc === null) break;
          docs = [doc];
        }
        for (const doc of docs) {
          json += (count === 0 ? '' : ',') + render(doc);
          count++;
          if (json.length >= RENDER_CHUNK_CHARS) {
            const chunk: RowBatch = { json: Buffer.from(json, 'utf8'), rowCount: count };
            json = '';
            count = 0;
            yield chunk;
            signal.throwIfAborted();
            this.assertOpen(table);
          }
        }
      }
      if (count > 0) yield { json: Buffer.from(json, 'utf8'), rowCount: count };
    } finally {
      // Early stop, abort or failure: kill the server cursor (a no-op once it is exhausted).
      // After an abort the killCursors goes out in the background, so the abort stays prompt.
      const closing = cursor.close().catch(() => undefined);
      if (!signal.aborted) await closing;
    }
  }

  /** Idempotent. Active cursors are closed by the driver; a silent server cannot hold it up. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      });
      try {
        await Promise.race([this.client.close().catch(() => undefined), deadline]);
      } finally {
        clearTimeout(timer);
      }
    })();
    return this.closing;
  }

  private assertOpen(table?: string): void {
    if (this.closing !== undefined) throw new DatasourceQueryError(this.ctx.configName, 'Session is closed', table);
  }

  /** Documents already received; decoding happens here (a BSON error is a query error too). */
  private buffered(cursor: FindCursor<Document>, table: string): Document[] {
    try {
      return cursor.readBufferedDocuments(DRAIN_DOCS);
    } catch (error) {
      throw new DatasourceQueryError(this.ctx.configName, `Reading collection "${table}" failed: ${describeError(error)}`, table);
    }
  }

  /**
   * The next document, raced against the signal: an abort while a find or getMore is in flight
   * returns at once (the cursor is then killed by readRows), without waiting for the server.
   */
  private async next(cursor: FindCursor<Document>, signal: AbortSignal, table: string): Promise<Document | null> {
    signal.throwIfAborted();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<typeof ABORTED>((resolve) => {
      onAbort = () => resolve(ABORTED);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const read = cursor.next();
      // Settled after an abort: its outcome is dropped, never reported as unhandled.
      read.catch(() => undefined);
      const outcome = await Promise.race([read, aborted]);
      if (outcome === ABORTED) throw signal.reason;
      return outcome;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      this.assertOpen(table);
      throw new DatasourceQueryError(this.ctx.configName, `Reading collection "${table}" failed: ${describeError(error)}`, table);
    } finally {
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    }
  }
}
