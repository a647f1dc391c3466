import type { RowBatch, TableReadRequest } from '../shared/engine-connector.js';
import type { CursorRange } from '../../incremental/cursor-range.js';
import { rangeRead } from '../../incremental/range-filters.js';
import { renderedValueText } from '../../incremental/bound-text.js';
import { buildBound } from './postgres-range-sql.js';
import { createBatchRenderer, type RawRow } from './postgres-value-encoders.js';

/** What a range read needs from its session. */
export interface RangeSessionLink {
  /** One statement, raced against the signal like any read; rows as text (TEXT_TYPES), in array mode. */
  query(text: string, values: readonly unknown[], signal: AbortSignal, table: string): Promise<RawRow[]>;
  /** The session's ordinary read, run inside the transaction this read opened. */
  readInTransaction(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch>;
  /** Leaves a transaction that did not commit, bounded; cuts the connection if it cannot. */
  rollback(): Promise<void>;
}

/**
 * One incremental read (docs/incremental.md, "PostgreSQL"): a REPEATABLE READ, read-only
 * transaction whose first statement takes the bound, so the bound and the rows come from one
 * snapshot. A row committed after that snapshot is not read now; if its cursor is above the bound
 * the next read gets it, if not (a value lower than a committed one) it is the limit the lag is for.
 */
export async function* readPostgresRange(link: RangeSessionLink, request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
  const table = request.table.key;
  let open = false;
  let committed = false;
  try {
    // Open from the moment BEGIN is sent: an abort may win the race against its answer while the
    // server has begun the transaction. A ROLLBACK outside one is only a warning.
    open = true;
    await link.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY', [], signal, table);
    const bound = buildBound(request);
    const rows = await link.query(bound.text, bound.values, signal, table);
    const upper = renderBound(request.range as CursorRange, rows[0]?.[0] ?? null);
    request.onRangeBound?.(upper);
    if (upper !== null) yield* link.readInTransaction(rangeRead(request, upper), signal);
    await link.query('COMMIT', [], signal, table);
    committed = true;
  } finally {
    if (open && !committed) await link.rollback();
  }
}

/** The bound as the result renders its column (docs/value-mapping.md), through the column's own encoder. */
function renderBound(range: CursorRange, text: string | null): string | null {
  if (text === null) return null;
  const [batch] = createBatchRenderer([range.column])([[text]]);
  const rendered = renderedValueText(batch.json);
  batch.release?.();
  return rendered;
}
