import { ABORT_BUDGET_MS, abortableRead } from '../shared/abortable-read.js';
import { assertFitsResult, rawValueBytes } from '../shared/byte-batcher.js';
import { type CatalogBudget, defaultCatalogBudget } from '../shared/catalog-budget.js';
import type { ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../shared/engine-connector.js';
import { CLOSE_TIMEOUT_MS, EngineSession } from '../shared/engine-session.js';
import { FetchSizer } from '../shared/fetch-sizer.js';
import { DEFAULT_READ_BUDGET, type ReadBudget } from '../shared/read-budget.js';
import { settleOrCut } from '../shared/settle.js';
import { closeConnection, destroyConnection, fetchTypeHandler } from './oracle-client.js';
import { columnsStatement, discoveryOwners, primaryKeysStatement, toSnapshot } from './oracle-discovery.js';
import type { OracleBindValue, OracleConnection, OracleDriver, OracleExecuteOptions, OracleResultSet } from './oracle-driver.js';
import { readRange, ROLLBACK } from './oracle-range-read.js';
import { buildSelect } from './oracle-sql.js';
import type { OracleBind, SqlStatement } from './oracle-statement-builder.js';
import { createBatchRenderer } from './oracle-value-encoders.js';

/** Rows per batch at most when the request brings no budget (DEFAULT_READ_BUDGET). */
export const BATCH_ROWS = DEFAULT_READ_BUDGET.batchRows;
/** Rows per round trip of the catalog queries (metadata, never table data). */
export const FETCH_ARRAY_SIZE = 1_000;

export interface OracleSessionContext {
  readonly configName: string;
  /** The login's schema (upper case): its tables are keyed without owner. */
  readonly defaultSchema: string;
}

/** Safe text of a server or driver error: the first line of its message (`ORA-00942: …`), no SQL, no help URL. */
export function describeError(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message !== 'string') return 'unknown error';
  return message.split('\n')[0].trim().slice(0, 300);
}

/**
 * Execute options of one extraction read: rows as arrays, exact fetch types. The execute's own
 * round trip brings exactly the first fetch (`prefetchRows`), no more: a larger prefetch would
 * buffer rows in the driver before anything knows how large they are. Later round trips are sized
 * by getRows(n), which in thin mode asks the server for n rows (fetchArraySize only serves
 * getRow() and streams, which are not used).
 */
export function readOptions(driver: OracleDriver, firstFetchRows: number): OracleExecuteOptions {
  return {
    resultSet: true,
    outFormat: driver.OUT_FORMAT_ARRAY,
    fetchArraySize: firstFetchRows,
    prefetchRows: firstFetchRows,
    fetchTypeHandler: fetchTypeHandler(driver),
  };
}

/**
 * Estimated bytes of one fetch's rows, refusing a value larger than what the result may still
 * hold before any of them is rendered. node-oracledb has assembled every value by then: LOBs are
 * fetched inline (as LONG data), and a round trip's packets are all read before its rows are
 * handed over.
 */
export function fetchedBytes(rows: readonly (readonly unknown[])[], budget: ReadBudget, table: string): number {
  let total = 0;
  let largest = 0;
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const bytes = rawValueBytes(row[i]);
      total += bytes;
      if (bytes > largest) largest = bytes;
    }
  }
  assertFitsResult(budget, table, largest);
  return total;
}

/** Filter values as the driver binds them: CHAR binds get their explicit type. */
export function driverBinds(driver: OracleDriver, binds: readonly OracleBind[]): OracleBindValue[] {
  return binds.map((b) => {
    if (b !== null && typeof b === 'object')
      return { val: b.value, type: b.charType === 'nchar' ? driver.DB_TYPE_NCHAR : driver.DB_TYPE_CHAR };
    return b;
  });
}

/**
 * One open connection: discovery and row reads run one after the other on it.
 *
 * Rows are read from a result set in round trips (`getRows`) sized from the bytes per row seen so
 * far: one round trip is made only when the consumer asks for the next batch, so a slow consumer
 * holds the cursor open on the server instead of filling memory. An abort while a round trip (a
 * read or a catalog query) is running sends `connection.break()`, which makes the server end the
 * call (ORA-01013); an early stop closes the cursor. The session then stays usable. Only when the
 * interrupted call has not ended within ABORT_BUDGET_MS is the socket cut, and every later call
 * fails with "Connection lost".
 */
export class OracleSession extends EngineSession implements ConnectorSession {
  /** The round trip in progress, if any: close() breaks it rather than wait for it. */
  private inFlight: Promise<unknown> | undefined;

  constructor(
    private readonly connection: OracleConnection,
    private readonly driver: OracleDriver,
    private readonly ctx: OracleSessionContext,
  ) {
    super(ctx.configName, describeError);
  }

  /**
   * The catalog is fetched FETCH_ARRAY_SIZE rows a round trip, each row's values charged to
   * `budget` as the fetch arrives: past it the connection is cut and the discovery fails with
   * CatalogTooLargeError.
   */
  async discover(schemas: readonly string[] | null, signal: AbortSignal, budget?: CatalogBudget): Promise<SchemaSnapshot> {
    signal.throwIfAborted();
    this.assertUsable();
    const catalog = budget ?? defaultCatalogBudget(this.ctx.configName);
    const owners = discoveryOwners(schemas, this.ctx.defaultSchema);
    const columns = await this.catalog(columnsStatement(owners), signal, catalog);
    const keys = await this.catalog(primaryKeysStatement(owners), signal, catalog);
    return toSnapshot(columns, keys, this.ctx.defaultSchema);
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
      run: (statement, s) => this.run(statement, s, table),
      read: (plain, s) => this.readTable(plain, s),
      rollback: () => this.rollback(table),
      failure: (error) => this.readFailure(error, table),
    });
  }

  private async *readTable(request: TableReadRequest, signal: AbortSignal): AsyncGenerator<RowBatch> {
    const table = request.table.key;
    this.assertUsable(table);
    let statement: SqlStatement;
    try {
      statement = buildSelect(request);
    } catch (error) {
      // A filter value that is not a date for a DATE column, a BFILE column: nothing was sent.
      throw this.readFailure(error, table);
    }
    const budget = request.budget ?? DEFAULT_READ_BUDGET;
    const sizer = new FetchSizer(budget);
    const render = createBatchRenderer(request.columns, request.rowFrame);
    const binds = driverBinds(this.driver, statement.binds);
    const options = readOptions(this.driver, sizer.next);
    const failed = (error: unknown) => this.readFailure(error, table);
    const result = await this.call(
      () => this.connection.execute(statement.text, binds, options),
      signal,
      failed,
      (late) => {
        // The statement completed just as the read was aborted: release its cursor.
        if (late.resultSet !== undefined) void this.closeResultSet(late.resultSet);
      },
    );
    const resultSet = result.resultSet;
    if (resultSet === undefined) return;
    try {
      for (;;) {
        const asked = sizer.next;
        const rows = await this.call(() => resultSet.getRows(asked), signal, failed);
        if (rows.length === 0) return;
        sizer.record(rows.length, fetchedBytes(rows, budget, table));
        for (const chunk of render(rows)) {
          signal.throwIfAborted();
          // Closed under a consumer that still holds the iterator: no more rows.
          this.assertOpen(table);
          yield chunk;
        }
        if (rows.length < asked) return;
      }
    } finally {
      await this.closeResultSet(resultSet);
    }
  }

  /** Idempotent. A round trip still running is broken first (within ABORT_BUDGET_MS), so closing is prompt. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const running = this.inFlight;
      if (running !== undefined && this.lost === undefined) {
        await settleOrCut(this.breakCall(running), ABORT_BUDGET_MS, () =>
          this.sever('statement could not be interrupted; connection closed'),
        );
      }
      await closeConnection(this.connection, CLOSE_TIMEOUT_MS);
    })();
    return this.closing;
  }

  protected override lostReason(): Error | undefined {
    this.noteLost();
    return this.lost;
  }

  /** node-oracledb emits no event when the socket dies; its health check notices a closed one. */
  private noteLost(): void {
    if (this.lost === undefined && !this.connection.isHealthy())
      this.lost = new Error('connection to Oracle Database was closed or broken');
  }

  /** A statement whose whole (small) result is wanted, NUMBERs as exact text: a range's bound, its transaction. */
  private run(statement: SqlStatement, signal: AbortSignal, table: string): Promise<unknown[][]> {
    this.assertUsable(table);
    const options: OracleExecuteOptions = { outFormat: this.driver.OUT_FORMAT_ARRAY, fetchTypeHandler: fetchTypeHandler(this.driver) };
    const binds = driverBinds(this.driver, statement.binds);
    return this.call(
      () => this.connection.execute(statement.text, binds, options).then((result) => result.rows ?? []),
      signal,
      (error) => this.readFailure(error, table),
    );
  }

  /**
   * Ends a range read's transaction after a failure, an abort or an early stop, within
   * ABORT_BUDGET_MS, else the socket is cut (the server then rolls back). A closed or lost
   * session has nothing to end: closing the connection ends the transaction with it.
   */
  private async rollback(table: string): Promise<void> {
    if (this.closing !== undefined || this.lostReason() !== undefined) return;
    const done = this.run({ text: ROLLBACK, binds: [] }, new AbortController().signal, table).catch(() => undefined);
    await settleOrCut(done, ABORT_BUDGET_MS, () => this.sever('transaction could not be rolled back; connection closed'));
  }

  /** One catalog query through a result set, every fetched row charged to `budget` before the next round trip. */
  private async catalog(statement: SqlStatement, signal: AbortSignal, budget: CatalogBudget): Promise<unknown[][]> {
    const failed = (error: unknown) => budget.exceeded ?? this.discoveryFailure(error);
    const options: OracleExecuteOptions = {
      resultSet: true,
      outFormat: this.driver.OUT_FORMAT_ARRAY,
      fetchArraySize: FETCH_ARRAY_SIZE,
      prefetchRows: FETCH_ARRAY_SIZE,
    };
    const result = await this.call(
      () => this.connection.execute(statement.text, driverBinds(this.driver, statement.binds), options),
      signal,
      failed,
      (late) => {
        if (late.resultSet !== undefined) void this.closeResultSet(late.resultSet);
      },
    );
    const resultSet = result.resultSet;
    if (resultSet === undefined) return result.rows ?? [];
    const rows: unknown[][] = [];
    try {
      for (;;) {
        const fetched = await this.call(() => resultSet.getRows(FETCH_ARRAY_SIZE), signal, failed);
        for (const row of fetched) {
          if (!budget.tryCharge(row.reduce<number>((sum, value) => sum + rawValueBytes(value), 0))) {
            this.sever('the schema catalog passed its byte budget; connection closed');
            throw budget.exceeded;
          }
          rows.push(row);
        }
        if (fetched.length < FETCH_ARRAY_SIZE) return rows;
      }
    } finally {
      await this.closeResultSet(resultSet);
    }
  }

  /**
   * One round trip, raced against the signal: an abort breaks it on the server, and cuts the
   * socket when the call has not ended within ABORT_BUDGET_MS. `onLate` gets the value of a call
   * that completed anyway after the abort (e.g. a result set to close). Other failures become
   * `failed(error)`.
   */
  private async call<T>(
    start: () => Promise<T>,
    signal: AbortSignal,
    failed: (error: unknown) => Error,
    onLate?: (value: T) => void,
  ): Promise<T> {
    let pending: Promise<T> | undefined;
    let settled = false;
    try {
      return await abortableRead(
        () => {
          pending = start();
          this.inFlight = pending;
          pending.then(
            () => (settled = true),
            () => (settled = true),
          );
          return pending;
        },
        signal,
        async (read) => {
          if (onLate !== undefined) read.then(onLate, () => undefined);
          // A call that has just completed is not interrupted: a break with nothing running
          // would only disturb the next call.
          if (!settled) await this.breakCall(read);
        },
        (error) => {
          this.noteLost();
          return failed(error);
        },
        () => this.sever('statement could not be interrupted; connection closed'),
      );
    } finally {
      if (this.inFlight === pending) this.inFlight = undefined;
    }
  }

  /**
   * Stops the running call: `break()` (an Oracle Net interrupt on the same socket), then waits for
   * the call to fail with ORA-01013. A break that cannot even be sent cuts the socket at once.
   * The caller bounds the wait.
   */
  private async breakCall(pending: Promise<unknown>): Promise<void> {
    try {
      await this.connection.break();
    } catch {
      this.sever('statement could not be interrupted; connection closed');
      return;
    }
    await pending.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Cuts the socket: the session is lost, and the call waiting on it fails at once. */
  private sever(reason: string): void {
    this.lost ??= new Error(reason);
    destroyConnection(this.connection);
  }

  /** Closes the cursor (early stop, abort, failure or end); on a lost connection there is nothing to close. */
  private async closeResultSet(resultSet: OracleResultSet): Promise<void> {
    if (this.lost !== undefined) return;
    await settleOrCut(resultSet.close(), CLOSE_TIMEOUT_MS, () => this.sever('cursor did not close; connection closed'));
  }
}
