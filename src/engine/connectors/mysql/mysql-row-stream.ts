import type { Connection, Query } from 'mysql2';
import { BatchStream } from '../shared/batch-stream.js';
import { ByteBatcher } from '../shared/byte-batcher.js';
import type { ReadBudget } from '../shared/read-budget.js';
import type { RawRow } from './mysql-value-encoders.js';

/** What the value mapping reads from the server's column metadata (MariaDB: `json` format). */
export interface ResultField {
  readonly extendedFormat?: string;
}

/** How a collector reports to its stream. */
export interface RowIntake {
  /** The read was stopped: whatever still arrives is dropped. */
  isDropping(): boolean;
  /** A row was collected; `full`: the batch is complete. */
  collected(full: boolean): void;
  /** A row fails the read (a value too large, a row that cannot be read). */
  failed(error: unknown): void;
}

/** What a stream does with the rows of its statement: batches of `B`, each `length` rows long. */
export interface RowCollector<B extends { readonly length: number }> {
  /** Starts collecting the rows of `query`, which has just been sent on `connection`. */
  listen(query: Query, connection: Connection, intake: RowIntake): void;
  readonly isFull: boolean;
  /** The batch so far; the next one starts empty. */
  take(): B;
  /** The read was stopped: forgets what was collected and not taken, and collects nothing more. */
  drop(): void;
}

/**
 * Rows as mysql2 parses them, from its per-row events; a batch is full once it holds the budget's
 * `batchBytes` (estimated from the raw values) or `batchRows`.
 */
export class ParsedRowCollector implements RowCollector<RawRow[]> {
  private rows: RawRow[] = [];
  private readonly batch: ByteBatcher;

  constructor(budget: ReadBudget, table: string) {
    this.batch = new ByteBatcher(budget, table);
  }

  get isFull(): boolean {
    return this.batch.isFull;
  }

  listen(query: Query, _connection: Connection, intake: RowIntake): void {
    query.on('result', (row: RawRow) => {
      if (intake.isDropping()) return;
      let full: boolean;
      try {
        full = this.batch.add(row);
      } catch (error) {
        intake.failed(error);
        return;
      }
      this.rows.push(row);
      intake.collected(full);
    });
  }

  take(): RawRow[] {
    const rows = this.rows;
    this.rows = [];
    this.batch.reset();
    return rows;
  }

  drop(): void {
    this.rows = [];
  }
}

/**
 * One running SELECT on the callback connection, read in batches with real backpressure. Rows are
 * collected (parsed by mysql2, or rendered from their packets: mysql-rendered-rows.ts) until a
 * batch is full; then the connection is paused (its socket is no longer read, TCP fills up and the
 * server waits) until the consumer asks for the next batch. At most one batch is read ahead, never
 * the table. A row with a value larger than what the result may still hold fails the stream
 * (ValueTooLargeError) before it is rendered.
 */
export class MySqlRowStream<B extends { readonly length: number } = RawRow[]> extends BatchStream {
  private discarding = false;
  private fields: readonly ResultField[] = [];
  private readonly collector: RowCollector<B>;

  constructor(connection: Connection, sql: string, budget: ReadBudget, table: string);
  constructor(connection: Connection, sql: string, budget: ReadBudget, table: string, collector: RowCollector<B>);
  constructor(
    private readonly connection: Connection,
    sql: string,
    budget: ReadBudget,
    table: string,
    collector?: RowCollector<B>,
  ) {
    super();
    this.collector = collector ?? (new ParsedRowCollector(budget, table) as unknown as RowCollector<B>);
    // A lost socket is reported to the connection, not to a command without callback; so is a
    // query on a connection already closed, synchronously, hence the listener comes first.
    connection.on('error', this.onConnectionError);
    const query = connection.query({ sql, rowsAsArray: true });
    query.on('fields', (fields: readonly ResultField[]) => {
      this.fields = fields;
    });
    this.collector.listen(query, connection, {
      isDropping: () => this.discarding,
      collected: (full) => this.onCollected(full),
      failed: (error) => this.fail(error),
    });
    query.on('error', (error: unknown) => this.finish(error));
    query.on('end', () => this.finish());
  }

  /** Column metadata of the result, known once the first batch has arrived. */
  get resultFields(): readonly ResultField[] {
    return this.fields;
  }

  /**
   * The next batch (bounded by the budget's bytes and rows); an empty one once the result is
   * exhausted. Rejects with the statement's error, or the failure the stream was stopped with.
   */
  async next(): Promise<B> {
    this.throwIfFailed();
    if (!this.collector.isFull && !this.isFinished) {
      await this.rowsArrive();
      this.throwIfFailed();
    }
    return this.collector.take();
  }

  /**
   * Stops collecting: the rest of the result (what is in flight until the server stops the
   * statement) is read and dropped, so a server blocked on a full socket reaches its kill check.
   */
  discard(): void {
    this.discarding = true;
    this.collector.drop();
    this.connection.resume();
  }

  /**
   * Fails the stream with `error` while the statement may still be running: what keeps coming
   * is dropped, and the caller stops the statement. The failure is what `next()` rejects with,
   * whatever the statement reports next: the kill's "interrupted" follows from it.
   */
  fail(error: unknown): void {
    this.failure ??= error;
    this.discard();
    this.notify();
  }

  private onCollected(full: boolean): void {
    if (full) {
      this.connection.pause();
      this.notify();
    }
  }

  /** Replays what arrived while paused, then reads the socket again. */
  protected resumeRows(): void {
    this.connection.resume();
  }

  protected override released(): void {
    this.connection.removeListener('error', this.onConnectionError);
  }

  private readonly onConnectionError = (error: unknown): void => {
    this.finish(error ?? new Error('connection lost'));
  };
}
