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

const DATE = '[-+]?\\d{4,}-\\d{2}-\\d{2}';
const TIME = '\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?';
const VALUE_FORMS: Readonly<Record<CursorKind, { readonly pattern: RegExp; readonly form: string }>> = {
  integer: { pattern: /^[-+]?\d+$/, form: 'an integer, e.g. "1024"' },
  decimal: { pattern: /^[-+]?(\d+(\.\d*)?|\.\d+)$/, form: 'a decimal, e.g. "12.50"' },
  date: { pattern: new RegExp(`^${DATE}$`), form: 'a date, YYYY-MM-DD' },
  timestamp: { pattern: new RegExp(`^${DATE}[T ]${TIME}$`), form: 'a timestamp without zone, YYYY-MM-DDTHH:MM:SS[.f]' },
  timestamptz: { pattern: new RegExp(`^${DATE}[T ]${TIME}(Z|[+-]\\d{2}(:?\\d{2})?)$`), form: 'a timestamp with Z or an offset' },
  objectid: { pattern: /^[0-9a-fA-F]{24}$/, form: 'an ObjectId, 24 hexadecimal digits' },
};

/**
 * Why `text` cannot be a value of a cursor of `kind` (a starting value, a mark set by hand), or
 * undefined when it can: a value the database would cast to something else (`"abc"` to 0) would
 * move the range somewhere nobody asked for.
 */
export function cursorValueProblem(kind: CursorKind, text: string): string | undefined {
  const { pattern, form } = VALUE_FORMS[kind];
  return pattern.test(text) ? undefined : `'${text.slice(0, 60)}' is not ${form}`;
}
