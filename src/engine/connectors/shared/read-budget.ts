import { ResultTooLargeError } from '../../errors/engine-errors.js';

/**
 * What one table read may hold in memory, in bytes. A row count alone does not bound memory: 2,000
 * rows of 2 MB each are 4 GB. Connectors that fetch in round trips (PostgreSQL, Oracle) size each
 * fetch from the bytes per row seen so far; streaming ones (MySQL, SQL Server, MongoDB) hand a batch
 * on once it holds `batchBytes`. `batchRows` stays as the upper bound on rows per batch.
 */
export interface ReadBudget {
  /** A batch is handed on once its rows hold about this many bytes. */
  readonly batchBytes: number;
  /** Rows per batch at most, however small they are. */
  readonly batchRows: number;
  /**
   * Result bytes this job may still write. A single value larger than this fails the read with
   * ValueTooLargeError, before it is buffered whole where the driver lets the connector see its size.
   */
  remainingBytes(): number;
}

export const DEFAULT_READ_BUDGET: ReadBudget = {
  batchBytes: 4 * 1024 * 1024,
  batchRows: 2_000,
  remainingBytes: () => Number.MAX_SAFE_INTEGER,
};

/**
 * Rows in the first fetch of a round-trip connector, before it knows how large rows are: one, so a
 * table of 2 MB rows never has 64 of them in flight at once; small rows reach the 2,000-row fetch
 * after six more round trips (4, 16, 64, 256, 1,024, 2,000), nothing next to a million rows.
 */
export const FIRST_FETCH_ROWS = 1;

/**
 * Rows to ask for next: as many as fit `batchBytes` at the mean row size seen so far, between 1 and
 * `batchRows`, growing at most fourfold per fetch so one small first batch cannot open the gate to
 * a huge one.
 */
export function nextFetchRows(budget: ReadBudget, previousRows: number, rowsSeen: number, bytesSeen: number): number {
  if (rowsSeen === 0 || bytesSeen === 0) return Math.min(budget.batchRows, Math.max(1, previousRows * 4));
  const fitting = Math.floor(budget.batchBytes / Math.max(1, bytesSeen / rowsSeen));
  return Math.max(1, Math.min(budget.batchRows, fitting, Math.max(1, previousRows) * 4));
}

/** A value (or row) that alone exceeds what the job may still write. Same code as a result over its limit. */
export class ValueTooLargeError extends ResultTooLargeError {
  constructor(table: string, valueBytes: number, remainingBytes: number) {
    super(
      `a value of ${valueBytes} bytes in table '${table}' exceeds what the result may still hold (${Math.max(0, remainingBytes)} bytes); nothing was stored`,
    );
  }
}
