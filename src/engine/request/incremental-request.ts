import type { CursorKind } from '../incremental/cursor-range.js';

/**
 * `dataRequest.incremental`: a named stream whose tables are read only above their committed
 * marks (docs/incremental.md). `cursors[configName][table]` names each table's cursor column, the
 * table spelled as in `mappedFields`; tables without one are read in full.
 */
export interface IncrementalRequest {
  readonly stream: string;
  readonly cursors: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Time cursors only: the upper bound is the column's maximum minus this many seconds. */
  readonly lagSeconds?: number;
  /** Where a table starts while it has no mark, inclusive: `initial[configName][table]`. */
  readonly initial?: Readonly<Record<string, Readonly<Record<string, string | number>>>>;
}

/** Where a table of a stream stands: rows up to `value` (inclusive) of `column` were delivered. */
export interface CursorMark {
  readonly column: string;
  readonly type: CursorKind;
  /** As the result renders the column (docs/value-mapping.md): decimals and integers exact, as text. */
  readonly value: string;
}

/** A stream's marks: `marks[configName][tableKey]`, the table by its result key. */
export type StreamMarks = Readonly<Record<string, Readonly<Record<string, CursorMark>>>>;

/** What one incremental read covered. */
export interface TableRange {
  readonly column: string;
  readonly type: CursorKind;
  /** The lower bound: the mark it started above, or the inclusive `initial`; null when it read from the start. */
  readonly from: string | null;
  /** True when `from` is a first run's `initial` (inclusive) rather than a mark (exclusive). */
  readonly fromInclusive: boolean;
  /** The mark after this read (its upper bound), or `from`'s mark when nothing new was there; null when still none. */
  readonly to: string | null;
  readonly rows: number;
}

/** An incremental extraction's ranges and the marks to commit with its result. */
export interface IncrementalOutcome {
  readonly stream: string;
  /** `tables[configName][tableKey]`. */
  readonly tables: Readonly<Record<string, Readonly<Record<string, TableRange>>>>;
  /** The marks of this job's cursor tables after it: what a caller commits (only on success). */
  readonly marks: StreamMarks;
}

export const MAX_STREAM_NAME_LENGTH = 128;
/** 30 days: a longer lag is a misconfigured unit rather than a late commit. */
export const MAX_LAG_SECONDS = 30 * 24 * 3600;
/** Filter operators the range itself uses on the cursor column, so a request may not. */
export const RANGE_OPERATORS = ['gt', 'gte', 'lte'] as const;
