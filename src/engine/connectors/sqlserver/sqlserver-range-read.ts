import { TIME_CURSOR_KINDS, type CursorKind, type CursorRange } from '../../incremental/cursor-range.js';
import { lowerBound, rangeRead, type MarkBinding } from '../../incremental/range-filters.js';
import { renderedJsonText } from '../../incremental/bound-text.js';
import type { ColumnInfo, RowBatch, TableInfo, TableReadRequest } from '../shared/engine-connector.js';
import { buildWhere } from './sqlserver-filter.js';
import { qualifiedName, quoteIdent } from './sqlserver-identifier.js';
import type { SqlParam } from './sqlserver-parameters.js';
import { projection, type SqlStatement } from './sqlserver-sql.js';
import { kindOfColumn, sqlServerColumnType, type SqlServerValueKind } from './sqlserver-types.js';
import { encoderFor, type RawRow, type RawValue } from './sqlserver-value-encoders.js';

/**
 * Incremental reads on SQL Server (docs/incremental.md). The bound and the rows come from one
 * transaction: under SNAPSHOT isolation where the database allows it, so both see the same
 * committed state; otherwise under READ COMMITTED, where a row committed after the bound with a
 * value at or below it can be missed (the bound is still taken first, so no row above it is read).
 */

const CURSOR_KINDS: ReadonlyMap<SqlServerValueKind, CursorKind> = new Map([
  ['integer', 'integer'],
  ['bigint', 'integer'],
  ['decimal', 'decimal'],
  // money/smallmoney are exact: four stored decimals, rendered as such.
  ['money', 'decimal'],
  ['date', 'date'],
  ['datetime2', 'timestamp'],
  ['datetime', 'timestamp'],
  ['smalldatetime', 'timestamp'],
  ['datetimeoffset', 'timestamptz'],
]);

/**
 * The cursor kind of a column: integers, exact decimals (money too), dates and date-times. float,
 * real, bit, time, uniqueidentifier, binary (rowversion included: it is not rendered as a number),
 * text and everything else cannot be one.
 */
export function cursorKindOf(column: ColumnInfo): CursorKind | null {
  const type = sqlServerColumnType(column);
  return type === null ? null : (CURSOR_KINDS.get(type.kind) ?? null);
}

/** `sys.databases.snapshot_isolation_state` 1 is ON; 2 and 3 are transitions, where SNAPSHOT fails. */
export const SNAPSHOT_STATE: SqlStatement = {
  text: 'SELECT snapshot_isolation_state FROM sys.databases WHERE database_id = DB_ID()',
  params: [],
};

/**
 * Run as plain batches, not through sp_executesql: a SET inside sp_executesql is undone when it
 * returns. The session's own level (READ COMMITTED, as tedious sets it at login) is restored
 * afterwards, so the reads that follow are not left under SNAPSHOT.
 */
export const beginTransaction = (snapshot: boolean): string =>
  `SET TRANSACTION ISOLATION LEVEL ${snapshot ? 'SNAPSHOT' : 'READ COMMITTED'}; BEGIN TRANSACTION`;
export const COMMIT = 'COMMIT TRANSACTION; SET TRANSACTION ISOLATION LEVEL READ COMMITTED';
/** Whatever state a failure left: the server may have ended the transaction itself (error 3961). */
export const ROLLBACK = 'IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION; SET TRANSACTION ISOLATION LEVEL READ COMMITTED';

/** `.fff` ending in 3: a datetime tick of 1/300 s (`.003` is 3.333… ms); see markBinding. */
const DATETIME_THIRD = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{2}3$/;

/**
 * A mark's text as a filter value. Filters compare a date-time column with a datetime2(7) value;
 * a `datetime` value is a count of 1/300 s ticks that the server converts to datetime2 either
 * exactly (`.0033333`, compatibility level 130+) or as its rounded text (`.003`, before 130),
 * while the result renders it with milliseconds. For `>` and `<=` (the mark, the bound) the
 * larger of the two forms is right at any level: it compares equal to its own tick and below the
 * next one, 3.3 ms away. `>=` needs the smaller one: rangeOperands gives `from` that form first.
 */
export function markBinding(column: ColumnInfo): MarkBinding {
  if (kindOfColumn(column) !== 'datetime') return (text) => text;
  return (text) => (DATETIME_THIRD.test(text) ? text + '3333' : text);
}

/**
 * The range as markBinding expects it: on a `datetime` column an inclusive `from` with three
 * fraction digits is written with seven, which compares as the smaller form and is left alone.
 */
export function rangeOperands(range: CursorRange): CursorRange {
  if (range.from === undefined || kindOfColumn(range.column) !== 'datetime') return range;
  return { ...range, from: range.from.replace(/(\.\d{3})$/, '$10000') };
}

const SECONDS_PER_DAY = 86_400;

/**
 * The column's maximum minus the lag, in the column's own type (DATEADD keeps it: datetime2(n)
 * its precision, datetimeoffset its offset). date takes no seconds: the lag is whole days,
 * rounded up; smalldatetime would round a second difference to the nearest minute, possibly up
 * past the maximum minus the lag, so it takes whole minutes, rounded up.
 */
function lagged(max: string, range: CursorRange): string {
  const lag = range.lagSeconds;
  if (lag === undefined) return max;
  // Written into the statement: the validator allows integers only, and our parameters have no int type.
  if (!TIME_CURSOR_KINDS.has(range.kind) || !Number.isSafeInteger(lag) || lag < 1) {
    throw new Error(`lagSeconds ${String(lag)} cannot apply to a ${range.kind} cursor`);
  }
  switch (kindOfColumn(range.column)) {
    case 'date':
      return `DATEADD(day, -${Math.ceil(lag / SECONDS_PER_DAY)}, ${max})`;
    case 'smalldatetime':
      return `DATEADD(minute, -${Math.ceil(lag / 60)}, ${max})`;
    default:
      return `DATEADD(second, -${lag}, ${max})`;
  }
}

/** The range's lower bound as a filter of its column: `> after`, `>= from`, or none. */
/**
 * The upper bound over the whole table (no user filter, so an index on the cursor answers it)
 * under the column's own name, then read and compared with the lower bound as any read and
 * filter of that column are: the same CONVERT, the same typed parameter. No row when the table
 * holds nothing above the lower bound; one NULL when it has no cursor value at all.
 */
export function boundStatement(table: TableInfo, ranged: CursorRange): SqlStatement {
  const range = rangeOperands(ranged);
  const { column } = range;
  const quoted = quoteIdent(column.name);
  const params: SqlParam[] = [];
  const lower = lowerBound(range, markBinding(column));
  const where = lower === undefined ? '' : buildWhere({ [column.name]: lower }, [column], params);
  const source = `SELECT ${lagged(`MAX([src].${quoted})`, range)} AS ${quoted} FROM ${qualifiedName(table)} AS [src]`;
  return { text: `SELECT ${projection(column)} FROM (${source}) AS [bound]${where === '' ? '' : ' WHERE ' + where}`, params };
}

/** The bound's value as the result renders the column (its own encoder), as mark text; null for none. */
export function boundText(column: ColumnInfo, value: RawValue): string | null {
  if (value === null || value === undefined) return null;
  return renderedJsonText(encoderFor(kindOfColumn(column))(value));
}

/** What a range read needs of its session. */
export interface RangeSession {
  /** Whether the database allows SNAPSHOT transactions. */
  snapshotIsolation(signal: AbortSignal): Promise<boolean>;
  /** Runs a statement (`batch`: a plain T-SQL batch) to its end, raced against the signal: its rows. */
  run(statement: SqlStatement, signal: AbortSignal, batch?: boolean): Promise<RawRow[]>;
  /** The ordinary read of a request without a range. */
  read(request: TableReadRequest, signal: AbortSignal): AsyncGenerator<RowBatch>;
  /** Ends whatever transaction is open, within a bound (else the connection is cut); never throws. */
  rollback(): Promise<void>;
}

const batch = (text: string): SqlStatement => ({ text, params: [] });

/**
 * One ranged read: the transaction, the bound (told to `onRangeBound` before any row), the rows
 * of `after < cursor <= bound` through the ordinary read, then COMMIT. A failure, an abort or an
 * early stop rolls back instead.
 */
export async function* readRange(request: TableReadRequest, signal: AbortSignal, session: RangeSession): AsyncGenerator<RowBatch> {
  const range = rangeOperands(request.range as CursorRange);
  const snapshot = await session.snapshotIsolation(signal);
  let open = true;
  try {
    await session.run(batch(beginTransaction(snapshot)), signal, true);
    const [row] = await session.run(boundStatement(request.table, range), signal);
    const upper = boundText(range.column, row?.[0]);
    request.onRangeBound?.(upper);
    if (upper !== null) yield* session.read(rangeRead({ ...request, range }, upper, markBinding(range.column)), signal);
    await session.run(batch(COMMIT), signal, true);
    open = false;
  } finally {
    if (open) await session.rollback();
  }
}
