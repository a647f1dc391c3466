import { DatasourceQueryError } from '../../datasource.error.js';
import type { ColumnInfo, ConnectorSession, RowBatch, SchemaSnapshot, TableReadRequest } from '../engine-connector.js';
import { closeConnection, destroyConnection, fetchTypeHandler } from './oracle-client.js';
import { columnsStatement, discoveryOwners, primaryKeysStatement, toSnapshot } from './oracle-discovery.js';
import type { OracleBindValue, OracleConnection, OracleDriver, OracleExecuteOptions, OracleResultSet } from './oracle-driver.js';
import { buildSelect, type OracleBind, type SqlStatement } from './oracle-sql.js';
import { kindOfColumn, LARGE_VALUE_KINDS } from './oracle-types.js';
import { createBatchRenderer } from './oracle-value-encoders.js';

/** Rows per batch: big enough to amortise round trips, small enough to keep memory flat. */
export const BATCH_ROWS = 2_000;
/** Rows per batch when a LOB or LONG is projected: those are fetched inline, whole. */
export const LARGE_VALUE_BATCH_ROWS = 100;
/** Rows per round trip (the driver's fetchArraySize / prefetchRows). */
export const FETCH_ARRAY_SIZE = 1_000;
/** How long an interrupted call may take to end after the break before the socket is cut. */
const SETTLE_AFTER_BREAK_MS = 2_000;
const CLOSE_TIMEOUT_MS = 2_000;

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

/** Batch size for a projection: small when any value may be a whole LOB. */
export function batchRowsFor(columns: readonly ColumnInfo[]): number {
  return columns.some((c) => LARGE_VALUE_KINDS.has(kindOfColumn(c))) ? LARGE_VALUE_BATCH_ROWS : BATCH_ROWS;
}

/** Execute options of one extraction read (rows as arrays, exact fetch types, batch-sized round trips). */
export function readOptions(driver: OracleDriver, batchRows: number): OracleExecuteOptions {
  const size = Math.min(batchRows, FETCH_ARRAY_SIZE);
  return { resultSet: true, outFormat: driver.OUT_FORMAT_ARRAY, fetchArraySize: size, prefetchRows: size, fetchTypeHandler: fetchTypeHandler(driver) };
}

/** Filter values as the driver binds them: CHAR binds get their explicit type. */
export function driverBinds(driver: OracleDriver, binds: readonly OracleBind[]): OracleBindValue[] {
  return binds.map((b) => {
    if (b !== null && typeof b === 'object') return { val: b.value, type: b.charType === 'nchar' ? driver.DB_TYPE_NCHAR : driver.DB_TYPE_CHAR };
    return b;
  });
}

const ABORTED = Symbol('aborted');

/**
 * One open connection: discovery and row reads run one after the other on it.
 *
 * Rows are read from a result set in batches (`getRows`): one batch is fetched only when the
 * consumer asks for it, so a slow consumer holds the cursor open on the server instead of filling
 * memory. An abort while a round trip is running sends `connection.break()`, which makes the
 * server end the statement (ORA-01013); an early stop closes the cursor. The session then stays
 * usable. Only when the interrupted call does not end within 2 s is the socket cut, and every
 * later call fails with "Connection lost".
 */
export class OracleSession implements ConnectorSession {
  private lost: Error | undefined;
  private closing: Promise<void> | undefined;
  /** The round trip in progress, if any: close() breaks it rather than wait for it. */
  private inFlight: Promise<unknown> | undefined;

  constructor(
    private readonly connection: OracleConnection,
    private readonly driver: OracleDriver,
    private readonly ctx: OracleSessionContext,
  ) {}

  async discover(schemas: readonly string[] | null): Promise<SchemaSnapshot> {
    this.assertUsable();
    const owners = discoveryOwners(schemas, this.ctx.defaultSchema);
    try {
      const columns = await this.catalog(columnsStatement(owners));
      const keys = await this.catalog(primaryKeysStatement(owners));
      return toSnapshot(columns, keys, this.ctx.defaultSchema);
    } catch (error) {
      this.noteLost();
      throw new DatasourceQueryError(this.ctx.configName, `Schema discovery failed: ${describeError(error)}`);
    }
  }

  async *readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
    signal.throwIfAborted();
    const table = request.table.key;
    this.assertUsable(table);
    let statement: SqlStatement;
    try {
      statement = buildSelect(request);
    } catch (error) {
      // A filter value that is not a date for a DATE column, a BFILE column: nothing was sent.
      throw new DatasourceQueryError(this.ctx.configName, `Reading table "${table}" failed: ${describeError(error)}`, table);
    }
    const batchRows = batchRowsFor(request.columns);
    const render = createBatchRenderer(request.columns);
    const binds = driverBinds(this.driver, statement.binds);
    const options = readOptions(this.driver, batchRows);
    const result = await this.call(() => this.connection.execute(statement.text, binds, options), signal, table, (late) => {
      // The statement completed just as the read was aborted: release its cursor.
      if (late.resultSet !== undefined) void this.closeResultSet(late.resultSet);
    });
    const resultSet = result.resultSet;
    if (resultSet === undefined) return;
    try {
      for (;;) {
        const rows = await this.call(() => resultSet.getRows(batchRows), signal, table);
        if (rows.length === 0) return;
        for (const chunk of render(rows)) {
          signal.throwIfAborted();
          // Closed under a consumer that still holds the iterator: no more rows.
          if (this.closing !== undefined) throw new DatasourceQueryError(this.ctx.configName, 'Session is closed', table);
          yield chunk;
        }
        if (rows.length < batchRows) return;
      }
    } finally {
      await this.closeResultSet(resultSet);
    }
  }

  /** Idempotent. A round trip still running is broken first, so closing is prompt. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const running = this.inFlight;
      if (running !== undefined && this.lost === undefined) await this.interrupt(running);
      await closeConnection(this.connection, CLOSE_TIMEOUT_MS);
    })();
    return this.closing;
  }

  private assertUsable(table?: string): void {
    if (this.closing !== undefined) throw new DatasourceQueryError(this.ctx.configName, 'Session is closed', table);
    this.noteLost();
    if (this.lost !== undefined) {
      throw new DatasourceQueryError(this.ctx.configName, `Connection lost: ${describeError(this.lost)}`, table);
    }
  }

  /** node-oracledb emits no event when the socket dies; its health check notices a closed one. */
  private noteLost(): void {
    if (this.lost === undefined && !this.connection.isHealthy()) this.lost = new Error('connection to Oracle Database was closed or broken');
  }

  private async catalog(statement: SqlStatement): Promise<unknown[][]> {
    const result = await this.connection.execute(statement.text, driverBinds(this.driver, statement.binds), {
      outFormat: this.driver.OUT_FORMAT_ARRAY,
      fetchArraySize: FETCH_ARRAY_SIZE,
    });
    return result.rows ?? [];
  }

  /**
   * One round trip, raced against the signal; an abort breaks it on the server. `onLate` gets
   * the value of a call that completed anyway after the abort (e.g. a result set to close).
   */
  private async call<T>(start: () => Promise<T>, signal: AbortSignal, table: string, onLate?: (value: T) => void): Promise<T> {
    signal.throwIfAborted();
    const pending = start();
    const state = { settled: false };
    pending.then(
      () => (state.settled = true),
      () => (state.settled = true),
    );
    this.inFlight = pending;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<typeof ABORTED>((resolve) => {
      onAbort = () => resolve(ABORTED);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const outcome = await Promise.race([pending, aborted]);
      if (outcome === ABORTED) {
        // A call that has just completed is not interrupted: a break with nothing running
        // would only disturb the next call.
        if (!state.settled) await this.interrupt(pending);
        if (onLate !== undefined) pending.then(onLate, () => undefined);
        throw signal.reason;
      }
      return outcome;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      this.noteLost();
      throw new DatasourceQueryError(this.ctx.configName, `Reading table "${table}" failed: ${describeError(error)}`, table);
    } finally {
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
      if (this.inFlight === pending) this.inFlight = undefined;
    }
  }

  /**
   * Stops the running call: `break()` (an Oracle Net interrupt on the same socket), then a short
   * wait for the call to fail with ORA-01013. If that does not happen, the socket is cut.
   */
  private async interrupt(pending: Promise<unknown>): Promise<void> {
    const settled = pending.then(
      () => true,
      () => true,
    );
    const broke = await this.connection.break().then(
      () => true,
      () => false,
    );
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      settled,
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), broke ? SETTLE_AFTER_BREAK_MS : 0);
      }),
    ]);
    clearTimeout(timer);
    if (!done) {
      this.lost ??= new Error('statement could not be interrupted; connection closed');
      destroyConnection(this.connection);
    }
  }

  /** Closes the cursor (early stop, abort, failure or end); on a lost connection there is nothing to close. */
  private async closeResultSet(resultSet: OracleResultSet): Promise<void> {
    if (this.lost !== undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      resultSet.close().then(
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
      destroyConnection(this.connection);
    }
  }
}
