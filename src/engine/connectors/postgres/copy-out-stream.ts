import { BatchStream } from '../shared/batch-stream.js';
import type { CopyDataFramer } from './copy-data-framer.js';

/** Bytes of rows received ahead of the renderer before the socket is no longer read (the server then waits). */
const READ_AHEAD_BYTES = 256 * 1024;

/** What this needs of pg's Connection: its socket, the simple-query call and the extended protocol's messages. */
interface PgConnection {
  readonly stream: Omit<NodeJS.ReadableStream, 'read'> & { read(): Buffer | null; cork?(): void; uncork?(): void };
  query(text: string): void;
  parse(query: { name: string; text: string; types: string[] }, more: boolean): void;
  bind(config: { values?: Array<Buffer | string | null | undefined> }, more: boolean): void;
  execute(config: object, more: boolean): void;
  sync(): void;
}

/** A statement run just before the COPY, in the same implicit transaction (its answer is dropped). */
export interface CopyPrelude {
  readonly text: string;
  readonly values: readonly unknown[];
}

type DataListener = (chunk: Buffer) => void;

/**
 * One `COPY … TO STDOUT`, submitted to a pg client as its active query. With a prelude (the bound
 * values' settings), both go out in one write as one extended-protocol pipeline (Parse, Bind,
 * Execute of each, then Sync): one round trip, one implicit transaction, so the prelude's
 * transaction-local settings hold for the COPY and end with it; an error in the prelude stops the
 * pipeline before the COPY runs. Without one it is a simple query. Between CopyOutResponse and
 * CopyDone it reads the socket itself (as the pg-copy-streams package does) and hands the renderer runs of whole
 * CopyData messages cut straight out of the socket's chunks (CopyDataFramer); everything from
 * CopyDone or an ErrorResponse on goes back to pg's parser, which ends the statement as usual.
 *
 * Chunks are taken synchronously while they are there: a promise only when the renderer has caught
 * up with the socket. Once READ_AHEAD_BYTES wait here the socket is no longer read, TCP fills up and
 * the server blocks, however large the table.
 */
export class CopyOutStream extends BatchStream {
  private connection: PgConnection | undefined;
  private pgDataListener: DataListener | undefined;
  private attached = false;
  private runs: Buffer[] = [];
  private queued = 0;
  private discarding = false;
  private pumping = false;
  private readonly onReadable = () => this.pump();

  constructor(
    private readonly text: string,
    private readonly framer: CopyDataFramer,
    private readonly prelude?: CopyPrelude,
  ) {
    super();
  }

  /** Called by pg when this becomes the client's active query. */
  submit(connection: PgConnection): void {
    this.connection = connection;
    const stream = connection.stream;
    const listeners = stream.listeners('data') as DataListener[];
    if (listeners.length !== 1) throw new Error(`expected pg's one data listener on the socket, found ${listeners.length}`);
    this.pgDataListener = listeners[0];
    stream.removeListener('data', this.pgDataListener);
    stream.pause();
    stream.on('readable', this.onReadable);
    this.attached = true;
    if (this.prelude === undefined) {
      connection.query(this.text);
      return;
    }
    // Corked, as pg's own extended queries are: the seven messages leave in one write.
    stream.cork?.();
    try {
      // Unnamed statements and portals: nothing outlives the pipeline. The values are pg's text forms (prepareValue).
      connection.parse({ name: '', text: this.prelude.text, types: [] }, true);
      connection.bind({ values: this.prelude.values as Array<string | null> }, true);
      connection.execute({}, true);
      connection.parse({ name: '', text: this.text, types: [] }, true);
      connection.bind({}, true);
      connection.execute({}, true);
      connection.sync();
    } finally {
      stream.uncork?.();
    }
  }

  /** The next run of CopyData messages if one is here, null at the end, undefined when it must be waited for. */
  take(): Buffer | null | undefined {
    const run = this.runs.shift();
    if (run !== undefined) {
      this.queued -= run.length;
      if (this.queued < READ_AHEAD_BYTES) this.pump();
      return run;
    }
    this.throwIfFailed();
    if (this.isFinished) return null;
    this.pump();
    return this.runs.length > 0 ? this.take() : undefined;
  }

  /** Resolves when take() has something to say (rows, the end, or a failure). */
  wait(): Promise<void> {
    if (this.runs.length > 0 || this.isFinished) return Promise.resolve();
    return this.rowsArrive();
  }

  /**
   * Drops what arrives from now on and keeps reading, so the rest of the stream (what was in
   * flight when the statement was cancelled) cannot hold the socket and the error reaches pg.
   */
  discard(): void {
    this.discarding = true;
    this.runs = [];
    this.queued = 0;
    this.pump();
  }

  // pg calls these once its own parser has the connection back.
  handleError(error: unknown): void {
    this.detach(Buffer.alloc(0));
    this.finish(error);
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {}

  protected resumeRows(): void {
    this.pump();
  }

  private pump(): void {
    if (this.pumping || !this.attached) return;
    this.pumping = true;
    try {
      const stream = (this.connection as PgConnection).stream;
      while (this.attached && (this.discarding || this.queued < READ_AHEAD_BYTES)) {
        const chunk = stream.read();
        if (chunk === null) break;
        this.route(chunk);
      }
    } catch (error) {
      // The bytes are not the COPY we asked for, or one row is larger than the result may hold:
      // the reader cuts the connection, nothing more can be parsed from it.
      this.finish(error);
    } finally {
      this.pumping = false;
    }
  }

  private route(chunk: Buffer): void {
    for (const event of this.framer.feed(chunk)) {
      if (event.kind === 'rows') {
        if (this.discarding) continue;
        this.runs.push(event.messages);
        this.queued += event.messages.length;
        this.notify();
      } else {
        this.detach(event.rest);
        // An error is pg's to parse: it calls handleError.
        if (event.kind === 'done') this.finish();
      }
    }
  }

  /** Gives the socket back to pg, with the bytes it has not seen yet. */
  private detach(rest: Buffer): void {
    if (!this.attached) return;
    this.attached = false;
    const stream = (this.connection as PgConnection).stream;
    const listener = this.pgDataListener as DataListener;
    stream.removeListener('readable', this.onReadable);
    stream.on('data', listener);
    if (rest.length > 0) listener(rest);
    // Adding the listener may not restart a paused socket by itself; once the current data event is done it must flow.
    process.nextTick(() => stream.resume());
  }
}
