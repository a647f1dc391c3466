import { TIME_CURSOR_KINDS, type CursorRange } from '../../incremental/cursor-range.js';
import { lowerBound, type MarkBinding, rangeRead } from '../../incremental/range-filters.js';
import { renderedJsonText } from '../../incremental/bound-text.js';
import type { RowBatch, TableReadRequest } from '../shared/engine-connector.js';
import { buildWhere } from './mysql-filter.js';
import { qualifiedName, quoteIdent } from './mysql-identifier.js';
import { renderSql } from './mysql-sql.js';
import { MySqlStatementBuilder, type SqlStatement } from './mysql-statement-builder.js';
import { kindOfColumn } from './mysql-types.js';
import { encoderFor, type RawValue } from './mysql-value-encoders.js';

/**
 * A ranged read's bound and rows come from one InnoDB read view, taken by the START itself.
 * The level is named because WITH CONSISTENT SNAPSHOT only means that under REPEATABLE READ: a
 * server or login defaulting to READ COMMITTED would give each statement a view of its own. SET
 * TRANSACTION applies to the next transaction only, so the session's level is left as it was.
 */
export const SNAPSHOT_SQL: readonly string[] = [
  'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ',
  'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY',
];
export const COMMIT_SQL = 'COMMIT';
export const ROLLBACK_SQL = 'ROLLBACK';

/** The ISO form the value encoders give DATETIME (no zone) and TIMESTAMP (`Z`) values. */
const RENDERED_DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)Z?$/;

/**
 * A mark as the filter binds it: a rendered date-time back in the server's own literal form, so
 * the comparison does not rest on how leniently a server reads the ISO `T` (MariaDB truncates a
 * trailing `Z` with a warning). The fraction is kept to its last digit: the filter casts to
 * DATETIME(6). Anything else (integers, decimals, dates, an `initial` with an offset) is left to
 * the filter's own reading of a value.
 */
export const bindMark: MarkBinding = (text, kind) => {
  if (kind !== 'timestamp' && kind !== 'timestamptz') return text;
  const m = RENDERED_DATE_TIME.exec(text);
  return m === null ? text : `${m[1]} ${m[2]}`;
};

/** The range's lower bound as a filter on its column, or undefined when it starts at the beginning. */
/**
 * The statement that takes a range's upper bound: the cursor's maximum over the whole table (no
 * user filter, so an index on the cursor answers it without reading rows), minus the lag for
 * time kinds, and no row when that is not above the lower bound. The derived table names its one
 * column as the cursor, so the lower bound is compared by the filter building that compares it
 * in the read itself. A DATE minus seconds is a DATETIME: it is cast back, which rounds the lag
 * up to whole days.
 */
export function boundSelect(request: TableReadRequest): SqlStatement {
  const range = rangeOf(request);
  const name = quoteIdent(range.column.name);
  const from = qualifiedName(request.table);
  let upper = `MAX(${from}.${name})`;
  const lag = range.lagSeconds;
  if (lag !== undefined && TIME_CURSOR_KINDS.has(range.kind)) {
    // Spliced into the text: it is a validated count of seconds, and INTERVAL takes no cast.
    if (!Number.isSafeInteger(lag) || lag < 0) throw new Error(`lagSeconds must be a whole number of seconds, not ${lag}`);
    upper = `${upper} - INTERVAL ${lag} SECOND`;
    if (range.kind === 'date') upper = `CAST(${upper} AS DATE)`;
  }
  const sql = new MySqlStatementBuilder().append(`SELECT ${name} FROM (SELECT ${upper} AS ${name} FROM ${from}) AS \`bound\``);
  const lower = lowerBound(range, bindMark);
  if (lower !== undefined) buildWhere({ [range.column.name]: lower }, [range.column], sql);
  return sql.build();
}

/**
 * The bound's value as the rows render its column, through the column's own encoder: the result
 * of `MAX(ts) - INTERVAL …` is a DATETIME on the wire, and still reads as the TIMESTAMP it bounds
 * (`…Z`). Null when there is none, or a zero date, which the rows render as null too.
 */
export function renderedMark(value: unknown, range: CursorRange): string | null {
  if (value === null || value === undefined) return null;
  return renderedJsonText(encoderFor(kindOfColumn(range.column))(value as NonNullable<RawValue>));
}

/** The ordinary read of a range once its bound is known, marks bound as the MySQL filter needs them. */
export function rangeRequest(request: TableReadRequest, upper: string): TableReadRequest {
  return rangeRead(request, upper, bindMark);
}

function rangeOf(request: TableReadRequest): CursorRange {
  if (request.range === undefined) throw new Error('not a ranged read');
  return request.range;
}

/** What a ranged read needs of its session. */
export interface RangeReadSession {
  /** One statement, raced against the signal like a batch; its failure is the read's. */
  run(sql: string, signal: AbortSignal, table: string): Promise<unknown[][]>;
  /** The session's ordinary read path. */
  read(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch>;
  /** Ends the transaction, bounded; the session cuts its connection rather than stay inside it. */
  rollback(aborted: boolean): Promise<void>;
}

/**
 * An incremental read (docs/incremental.md): in one consistent snapshot, the bound is taken and
 * told to the listener before any batch, then the rows of the range are read through the ordinary
 * path. COMMIT follows the last batch; a failure, an abort or an early stop rolls back, so the
 * session is never left inside the transaction.
 */
export async function* readRange(session: RangeReadSession, request: TableReadRequest, signal: AbortSignal): AsyncGenerator<RowBatch> {
  const range = rangeOf(request);
  const table = request.table.key;
  let committed = false;
  try {
    for (const sql of SNAPSHOT_SQL) await session.run(sql, signal, table);
    const [row] = await session.run(renderSql(boundSelect(request)), signal, table);
    const upper = renderedMark(row?.[0], range);
    request.onRangeBound?.(upper);
    if (upper !== null) yield* session.read(rangeRequest(request, upper), signal);
    await session.run(COMMIT_SQL, signal, table);
    committed = true;
  } finally {
    if (!committed) await session.rollback(signal.aborted);
  }
}
