import type { ColumnInfo } from '../connectors/shared/engine-connector.js';

/**
 * What a cursor column holds, as far as a range over it is concerned (docs/incremental.md, "Cursor
 * types"). Every kind has a total order the database itself compares in; text, floating point and
 * anything else are refused as cursors.
 */
export const CURSOR_KINDS = ['integer', 'decimal', 'date', 'timestamp', 'timestamptz', 'objectid'] as const;
export type CursorKind = (typeof CURSOR_KINDS)[number];

/** Kinds `lagSeconds` applies to: the bound is the maximum minus the lag. */
export const TIME_CURSOR_KINDS: ReadonlySet<CursorKind> = new Set(['date', 'timestamp', 'timestamptz']);

/**
 * The range one incremental read covers: `after < cursor <= upper`, or on a first run with a
 * starting value `from <= cursor <= upper`, where the connector takes `upper` (the column's
 * maximum, minus `lagSeconds` for time kinds) in the very snapshot it then reads from. A NULL
 * cursor is never in a range. Values are text as the result renders the column
 * (docs/value-mapping.md): what a mark shows is what the rows show.
 */
export interface CursorRange {
  readonly column: ColumnInfo;
  readonly kind: CursorKind;
  /** The committed mark: only rows above it. */
  readonly after?: string;
  /** A first run's starting value (`incremental.initial`), inclusive. Never together with `after`. */
  readonly from?: string;
  /** Time kinds only. */
  readonly lagSeconds?: number;
}

/**
 * Told once per read, before its first batch, the upper bound the read uses: the new mark. Null
 * when no row lies above the lower bound (or none has a cursor at all): nothing is read and the
 * mark stays where it was.
 */
export type RangeBoundListener = (upper: string | null) => void;
