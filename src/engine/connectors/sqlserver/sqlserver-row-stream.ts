import type { ConnectionPool, ISqlType, Request } from 'mssql';
import { mssql } from './sqlserver-driver.js';
import { BatchStream } from '../shared/batch-stream.js';
import type { ByteBatcher } from '../shared/byte-batcher.js';
import type { SqlParamType } from './sqlserver-parameters.js';
import type { PendingRowGuard } from './sqlserver-row-guard.js';
import type { SqlStatement } from './sqlserver-sql.js';
import type { RawRow } from './sqlserver-value-encoders.js';

/** The declared type of each parameter kind; MAX lengths so no value is ever cut. */
export function parameterType(type: SqlParamType): ISqlType {
  switch (type) {
    case 'nvarchar':
      return mssql().NVarChar(mssql().MAX);
    case 'varbinary':
      return mssql().VarBinary(mssql().MAX);
    case 'bit':
      return mssql().Bit();
    case 'float':
      return mssql().Float();
  }
}

/** A Request with the statement's parameters declared; rows as arrays. */
export function prepareRequest(pool: ConnectionPool, statement: SqlStatement, stream: boolean): Request {
  const request = new (mssql().Request)(pool);
  request.stream = stream;
  request.arrayRowMode = true;
  for (const param of statement.params) request.input(param.name, parameterType(param.type), param.value);
  return request;
}

/**
 * One running SELECT in mssql's streaming mode, read in batches with real backpressure. Rows are
 * collected from the `row` events until a batch is full (`batchRows` rows or `batchBytes` bytes);
 * then the request is paused (tedious stops parsing, its socket is no longer read, TCP fills up
 * and the server waits) until the consumer asks for the next batch. At most one batch is read
 * ahead, never the table.
 */
export class SqlServerRowStream extends BatchStream {
  private buffered: RawRow[] = [];
  /** Why the batcher refused a row: the reason this stream gives, whatever the cancel that follows reports. */
  private refused: unknown = undefined;
  private discarding = false;
  private readonly request: Request;

  /**
   * `batch` decides when a batch is full, and refuses rows holding a value the result cannot take;
   * `guard`, when given, is told of each row and detached once the statement is over.
   */
  constructor(
    pool: ConnectionPool,
    statement: SqlStatement,
    private readonly batch: ByteBatcher,
    private readonly guard?: Pick<PendingRowGuard, 'rowArrived' | 'detach'>,
  ) {
    super();
    this.request = prepareRequest(pool, statement, true);
    this.request.on('row', (row: RawRow) => this.onRow(row));
    // 'error' may come more than once (one per server message); the first one explains.
    this.request.on('error', (error: unknown) => {
      this.failure ??= error;
    });
    // Always the last event, after a failure or a cancel too.
    this.request.on('done', () => this.finish());
    this.request.query(statement.text).catch((error: unknown) => this.finish(error));
  }

  /**
   * The next batch of (about) `batchRows` rows or `batchBytes` bytes; an empty one once the result
   * is exhausted. Rejects with the statement's error, or with the batcher's ValueTooLargeError.
   */
  async next(): Promise<RawRow[]> {
    if (this.refused !== undefined) throw this.refused;
    // Never an empty batch after a cancel: that would read as the end of the table.
    if (this.discarding) throw new Error('statement cancelled');
    this.throwIfFailed();
    if (!this.batch.isFull && !this.isFinished) {
      await this.rowsArrive();
      this.throwIfFailed();
    }
    const rows = this.buffered;
    this.buffered = [];
    this.batch.reset();
    return rows;
  }

  /**
   * Stops the statement on the server: an attention (cancel) on its connection. tedious resumes a
   * paused request by itself to read up to the server's acknowledgement; what arrives meanwhile
   * is dropped. The stream then finishes with ECANCEL, which nobody reads.
   */
  cancel(): void {
    if (this.isFinished) return;
    this.discarding = true;
    this.buffered = [];
    this.batch.reset();
    // What arrives until the acknowledgement is dropped, whatever its size.
    this.guard?.detach();
    this.request.cancel();
  }

  /** Fails the stream with `error` (a row refused while it arrived), whatever its connection reports next. */
  refuse(error: unknown): void {
    this.refused ??= error;
    this.buffered = [];
    this.notify();
  }

  private onRow(row: RawRow): void {
    this.guard?.rowArrived();
    if (this.discarding || this.refused !== undefined) return;
    let full: boolean;
    try {
      full = this.batch.add(row);
    } catch (error) {
      // Nothing more is buffered; the consumer's next() throws and its cleanup cancels.
      this.refused = error;
      this.buffered = [];
      this.request.pause();
      this.notify();
      return;
    }
    this.buffered.push(row);
    if (full) {
      this.request.pause();
      this.notify();
    }
  }

  protected override throwIfFailed(): void {
    if (this.refused !== undefined) throw this.refused;
    super.throwIfFailed();
  }

  protected resumeRows(): void {
    this.request.resume();
  }

  protected override released(): void {
    this.guard?.detach();
  }
}
