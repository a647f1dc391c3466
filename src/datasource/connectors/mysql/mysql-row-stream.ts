import type { Connection } from 'mysql2';
import { ByteBatcher } from '../byte-batcher.js';
import type { ReadBudget } from '../read-budget.js';
import type { RawRow } from './mysql-value-encoders.js';

/** What the value mapping reads from the server's column metadata (MariaDB: `json` format). */
export interface ResultField {
  readonly extendedFormat?: string;
}

/**
 * One running SELECT on the callback connection, read in batches with real backpressure. Rows are
 * collected from mysql2's per-row events until a batch is full (it holds the budget's
 * `batchBytes`, estimated from the raw values, or `batchRows`); then the connection is paused
 * (its socket is no longer read, TCP fills up and the server waits) until the consumer asks for
 * the next batch. At most one batch is read ahead, never the table. A row with a value larger than
 * what the result may still hold fails the stream (ValueTooLargeError) before it is rendered.
 */
export class MySqlRowStream {
  private buffered: RawRow[] = [];
  private failure: unknown = undefined;
  private ended = false;
  private discarding = false;
  private wake: (() => void) | undefined;
  private fields: readonly ResultField[] = [];
  private resolveFinished: () => void = () => undefined;
  /** Resolves once the statement is over on this connection (rows done, failed or abandoned). */
  readonly finished: Promise<void>;

  private readonly batch: ByteBatcher;

  constructor(
    private readonly connection: Connection,
    sql: string,
    budget: ReadBudget,
    table: string,
  ) {
    this.batch = new ByteBatcher(budget, table);
    this.finished = new Promise<void>((resolve) => {
      this.resolveFinished = resolve;
    });
    // A lost socket is reported to the connection, not to a command without callback; so is a
    // query on a connection already closed, synchronously, hence the listener comes first.
    connection.on('error', this.onConnectionError);
    const query = connection.query({ sql, rowsAsArray: true });
    query.on('fields', (fields: readonly ResultField[]) => {
      this.fields = fields;
    });
    query.on('result', (row: RawRow) => this.onRow(row));
    query.on('error', (error: unknown) => this.finish(error));
    query.on('end', () => this.finish());
  }

  get isFinished(): boolean {
    return this.ended;
  }

  /** Column metadata of the result, known once the first batch has arrived. */
  get resultFields(): readonly ResultField[] {
    return this.fields;
  }

  /**
   * The next batch (bounded by the budget's bytes and rows); an empty one once the result is
   * exhausted. Rejects with the statement's error, or the failure the stream was stopped with.
   */
  async next(): Promise<RawRow[]> {
    if (this.failure !== undefined) throw this.failure;
    if (!this.batch.isFull && !this.ended) {
      const ready = new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      // Replays what arrived while paused, then reads the socket again.
      this.connection.resume();
      await ready;
      if (this.failure !== undefined) throw this.failure;
    }
    const rows = this.buffered;
    this.buffered = [];
    this.batch.reset();
    return rows;
  }

  /**
   * Stops collecting: the rest of the result (what is in flight until the server stops the
   * statement) is read and dropped, so a server blocked on a full socket reaches its kill check.
   */
  discard(): void {
    this.discarding = true;
    this.buffered = [];
    this.connection.resume();
  }

  /** Settles the stream from outside, when its connection has been cut. */
  abandon(error: Error): void {
    this.finish(error);
  }

  /**
   * Fails the stream with `error` while the statement may still be running: what keeps coming
   * is dropped, and the caller stops the statement (the failure is what `next()` rejects with).
   */
  fail(error: unknown): void {
    this.failure ??= error;
    this.discard();
    this.notify();
  }

  private onRow(row: RawRow): void {
    if (this.discarding) return;
    let full: boolean;
    try {
      full = this.batch.add(row);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.buffered.push(row);
    if (full) {
      this.connection.pause();
      this.notify();
    }
  }

  private readonly onConnectionError = (error: unknown): void => {
    this.finish(error ?? new Error('connection lost'));
  };

  private finish(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    // A failure set by fail() stays the one reported: the kill's "interrupted" follows from it.
    if (error !== undefined) this.failure ??= error;
    this.connection.removeListener('error', this.onConnectionError);
    this.resolveFinished();
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
