import { TIME_CURSOR_KINDS, type CursorKind, type CursorRange } from '../../incremental/cursor-range.js';
import { lowerBound, rangeRead } from '../../incremental/range-filters.js';
import { renderedJsonText } from '../../incremental/bound-text.js';
import type { ColumnInfo, RowBatch, TableInfo, TableReadRequest } from '../shared/engine-connector.js';
import { buildWhere } from './oracle-filter.js';
import { qualifiedName, quoteIdent } from './oracle-identifier.js';
import { projection } from './oracle-sql.js';
import { OracleStatementBuilder, type SqlStatement } from './oracle-statement-builder.js';
import { oracleColumnType, type OracleValueKind } from './oracle-types.js';
import { columnEncoder } from './oracle-value-encoders.js';

/**
 * Incremental reads on Oracle (docs/incremental.md). The bound and the rows are read in one
 * read-only transaction: every query in it sees the data as committed when it began (transaction-
 * level read consistency, from undo; no flashback privilege needed), so the rows are exactly
 * those the bound was taken over. A read that outlasts the undo retention fails with ORA-01555
 * rather than return rows from another point in time.
 */

const CURSOR_KINDS: ReadonlyMap<OracleValueKind, CursorKind> = new Map([
  // NUMBER(p), NUMBER(p,0), INTEGER, NUMBER(p,-n)
  ['integer', 'integer'],
  // NUMBER(p,s>0), NUMBER without precision or scale, FLOAT(b): all decimal NUMBERs, compared exactly
  ['decimal', 'decimal'],
  // DATE carries a time of day, to the second
  ['date', 'timestamp'],
  ['timestamp', 'timestamp'],
  ['timestamp_tz', 'timestamptz'],
  ['timestamp_ltz', 'timestamptz'],
]);

/**
 * The cursor kind of a column: NUMBERs (integers when their scale is 0 or less, else decimals),
 * DATE and the TIMESTAMP types. BINARY_FLOAT/BINARY_DOUBLE, intervals, text, LOBs, RAW and the
 * rest cannot be one.
 */
export function cursorKindOf(column: ColumnInfo): CursorKind | null {
  const type = oracleColumnType(column);
  return type === null ? null : (CURSOR_KINDS.get(type.kind) ?? null);
}

/**
 * What a read-only transaction begins with. SET TRANSACTION must be its first statement, so
 * whatever the session may have begun (a query over a database link begins a transaction) is
 * ended first; the session writes nothing, so a rollback loses nothing.
 */
export const END_PREVIOUS = 'ROLLBACK';
export const READ_ONLY = 'SET TRANSACTION READ ONLY';
export const COMMIT = 'COMMIT';
export const ROLLBACK = 'ROLLBACK';

/** The column's maximum minus the lag: DATE/TIMESTAMP* minus an INTERVAL keep their own type (and offset). */
function lagged(max: string, range: CursorRange): string {
  const lag = range.lagSeconds;
  if (lag === undefined) return max;
  // Written into the statement: the validator allows integers only.
  if (!TIME_CURSOR_KINDS.has(range.kind) || !Number.isSafeInteger(lag) || lag < 1) {
    throw new Error(`lagSeconds ${String(lag)} cannot apply to a ${range.kind} cursor`);
  }
  return `${max} - NUMTODSINTERVAL(${lag}, 'SECOND')`;
}

/**
 * The upper bound over the whole table (no user filter, so an index on the cursor answers it
 * with a MIN/MAX scan) under the column's own name, then read (TO_CHAR at the column's
 * precision) and compared with the lower bound as any read and filter of that column are. No row
 * when nothing lies above the lower bound; one NULL when the column holds no value at all.
 * Throws OracleFilterError for a starting value the column cannot read.
 */
export function boundStatement(table: TableInfo, range: CursorRange): SqlStatement {
  const { column } = range;
  const quoted = quoteIdent(column.name);
  const source = `SELECT ${lagged(`MAX(t.${quoted})`, range)} AS ${quoted} FROM ${qualifiedName(table)} t`;
  const sql = new OracleStatementBuilder().append(`SELECT ${projection(column)} FROM (${source})`);
  const lower = lowerBound(range);
  if (lower !== undefined) buildWhere({ [column.name]: lower }, [column], sql);
  return sql.build();
}

/** The bound's value as the result renders the column (its own encoder), as mark text; null for none. */
export function boundText(column: ColumnInfo, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return renderedJsonText(columnEncoder(oracleColumnType(column))(value));
}

/** What a range read needs of its session. */
export interface RangeSession {
  /** Runs a statement to its end, raced against the signal: its rows (none for SET TRANSACTION, COMMIT). */
  run(statement: SqlStatement, signal: AbortSignal): Promise<unknown[][]>;
  /** The ordinary read of a request without a range. */
  read(request: TableReadRequest, signal: AbortSignal): AsyncGenerator<RowBatch>;
  /** Ends the transaction within a bound (else the connection is cut); never throws. */
  rollback(): Promise<void>;
  /** A failure of this read, as the session reports it. */
  failure(error: unknown): Error;
}

const statement = (text: string): SqlStatement => ({ text, binds: [] });

/**
 * One ranged read: the read-only transaction, the bound (told to `onRangeBound` before any row),
 * the rows of the range through the ordinary read, then COMMIT. Marks bind as they are: TO_NUMBER
 * reads NUMBER text exactly, TO_TIMESTAMP[_TZ] the ISO text at nanoseconds with its offset. A
 * failure, an abort or an early stop rolls back instead.
 */
export async function* readRange(request: TableReadRequest, signal: AbortSignal, session: RangeSession): AsyncGenerator<RowBatch> {
  const range = request.range as CursorRange;
  let bound: SqlStatement;
  try {
    bound = boundStatement(request.table, range);
  } catch (error) {
    throw session.failure(error);
  }
  await session.run(statement(END_PREVIOUS), signal);
  let open = true;
  try {
    await session.run(statement(READ_ONLY), signal);
    const [row] = await session.run(bound, signal);
    const upper = boundText(range.column, row?.[0]);
    request.onRangeBound?.(upper);
    if (upper !== null) yield* session.read(rangeRead(request, upper), signal);
    await session.run(statement(COMMIT), signal);
    open = false;
  } finally {
    if (open) await session.rollback();
  }
}
