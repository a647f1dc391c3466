import type pg from 'pg';
import { FetcherError } from '../../errors/fetcher-error.js';
import { DatasourceQueryError } from '../../errors/datasource-errors.js';
import { ABORT_BUDGET_MS, abortableRead } from '../shared/abortable-read.js';
import type { RowBatch, TableReadRequest } from '../shared/engine-connector.js';
import { DEFAULT_READ_BUDGET, ValueTooLargeError } from '../shared/read-budget.js';
import { rowFrameBytes } from '../shared/row-frame.js';
import { settleOrCut } from '../shared/settle.js';
import { CopyDataFramer, CopyProtocolError } from './copy-data-framer.js';
import { CopyOutStream } from './copy-out-stream.js';
import { copyColumns } from './copy-text-columns.js';
import { CopyFormatError, CopyTextRenderer } from './copy-text-renderer.js';
import type { CopyStatement } from './postgres-sql.js';

const END_TRANSACTION_TIMEOUT_MS = 2_000;

/** What a COPY read needs from its session: the client, and the session's ways to stop a statement. */
export interface CopySessionLink {
  readonly client: pg.Client;
  /** The database cannot promise UTF-8 text (SQL_ASCII). */
  readonly bytesMayNotBeUtf8: boolean;
  isLost(): boolean;
  /** Cancels the running statement; cuts the socket when `read` has not settled soon after. */
  interrupt(read: Promise<unknown>): Promise<void>;
  sever(reason: Error): void;
  /** The connector's error for a failed statement or read of `table`. */
  failure(error: unknown, table: string): Error;
}

/**
 * SQLSTATEs of a server (or proxy) that does not do `COPY (query) TO STDOUT`, as opposed to one
 * that ran it and failed: feature not supported, syntax error, protocol violation.
 */
const COPY_REFUSALS = new Set(['0A000', '42601', '08P01']);

/** The server refused the COPY before any row was handed on: the cursor path can take over. */
export class CopyRefusedError extends Error {
  override readonly name = 'CopyRefusedError';

  constructor(readonly sqlState: string) {
    super(`the server refused COPY … TO STDOUT (SQLSTATE ${sqlState})`);
  }
}

/**
 * Streams one table with `COPY (SELECT …) TO STDOUT`: PostgreSQL formats every value on its own
 * core and Node only rewrites bytes (CopyTextRenderer). With filter values, the statement that binds
 * them (see buildCopy) and the COPY go out as one pipeline (CopyOutStream): one round trip, one
 * implicit transaction, or the caller's (an incremental read's snapshot). An abort, a failure or
 * a consumer that stops early cancels the COPY on the server; what is still in flight is read and
 * dropped so the cancel's error reaches pg and the session stays usable.
 */
export async function* readWithCopy(
  link: CopySessionLink,
  request: TableReadRequest,
  statement: CopyStatement,
  signal: AbortSignal,
): AsyncIterable<RowBatch> {
  const table = request.table.key;
  const columns = copyColumns(request.columns, { bytesMayNotBeUtf8: link.bytesMayNotBeUtf8 });
  const budget = request.budget ?? DEFAULT_READ_BUDGET;
  const renderer = new CopyTextRenderer(columns, budget, rowFrameBytes(request.rowFrame));
  const framer = new CopyDataFramer(() => budget.remainingBytes(), table);
  const copy = new CopyOutStream(statement.copy, framer, statement.settings ?? undefined);
  let yielded = false;
  try {
    link.client.query(copy);
    // take(): a chunk, null at the end, undefined when the socket has to be waited for.
    for (let chunk = copy.take(); chunk !== null; chunk = copy.take()) {
      if (chunk === undefined) {
        await abortableRead(
          () => copy.wait(),
          signal,
          () => link.interrupt(copy.finished),
          (error) => link.failure(error, table),
          () => link.sever(new Error('COPY could not be cancelled in time; connection closed')),
        );
        continue;
      }
      for (const batch of renderer.push(chunk)) {
        signal.throwIfAborted();
        yielded = true;
        yield batch;
      }
    }
    for (const batch of renderer.end()) {
      yielded = true;
      yield batch;
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    // The rest of that row may be a gigabyte in flight; cutting the socket is cheaper than reading it.
    // Bytes that are not the COPY we asked for leave nothing to parse the connection's state from.
    if (error instanceof ValueTooLargeError || error instanceof CopyProtocolError || error instanceof CopyFormatError) link.sever(error);
    // Already the connector's own (a statement's failure, a value too large for the result).
    if (error instanceof DatasourceQueryError || error instanceof FetcherError) throw error;
    const sqlState = (error as { code?: unknown } | null)?.code;
    if (!yielded && typeof sqlState === 'string' && COPY_REFUSALS.has(sqlState)) throw new CopyRefusedError(sqlState);
    // The COPY stream's own failure (a value its type refused, the server's error), or output COPY never writes.
    throw link.failure(error, table);
  } finally {
    await stop(link, copy, signal.aborted ? ABORT_BUDGET_MS : END_TRANSACTION_TIMEOUT_MS);
  }
}

/** A COPY still running when the read ends early is cancelled, its remaining output dropped. */
async function stop(link: CopySessionLink, reader: CopyOutStream, budgetMs: number): Promise<void> {
  if (reader.isFinished || link.isLost()) return;
  reader.discard();
  await settleOrCut(link.interrupt(reader.finished), budgetMs, () =>
    link.sever(new Error('COPY could not be cancelled in time; connection closed')),
  );
}

/** Leaves a transaction that did not commit, so the session can run its next statement; cuts the connection if it cannot. */
export async function endTransaction(link: CopySessionLink): Promise<void> {
  if (link.isLost()) return;
  const rollback = link.client.query('ROLLBACK').then(
    () => undefined,
    () => link.sever(new Error('the transaction could not be rolled back; connection closed')),
  );
  await settleOrCut(rollback, END_TRANSACTION_TIMEOUT_MS, () =>
    link.sever(new Error('the transaction could not be rolled back in time; connection closed')),
  );
}
