import type { ClientSession, Document, FindOptions } from 'mongodb';
import { TIME_CURSOR_KINDS, type CursorKind, type CursorRange } from '../../incremental/cursor-range.js';
import { lowerBound as rangeLowerBound, rangeRead, type MarkBinding } from '../../incremental/range-filters.js';
import { renderedJsonText } from '../../incremental/bound-text.js';
import type { FilterCondition } from '../../request/data-request.js';
import type { ColumnInfo, RowBatch, TableReadRequest } from '../shared/engine-connector.js';
import { mongodb } from './mongodb-driver.js';
import { buildMongoFilter, isFieldPath, parseIsoDate } from './mongodb-filter.js';
import { buildProjection, extractPath } from './mongodb-query.js';
import { type BsonTypeName, mongoFieldType } from './mongodb-types.js';
import { BSON_READ_OPTIONS, renderValue } from './mongodb-values.js';

/**
 * Incremental reads on MongoDB (docs/incremental.md). On a replica set or sharded cluster of 5.0
 * or later the bound and the documents are read in one snapshot session: every read of it sees
 * the data at the cluster time of its first (the bound), as long as it lasts less than the
 * server's snapshot history window (minSnapshotHistoryWindowInSeconds, 300 s by default; a longer
 * read fails with SnapshotTooOld rather than mix two points in time). A standalone server has no
 * snapshot reads: the bound is taken first, then the documents are read at the default read
 * concern, so a document written meanwhile with a value at or below the bound can be missed.
 */

/** The BSON types each kind takes (null aside: a document without a cursor is never in a range). */
const KIND_TYPES: readonly (readonly [CursorKind, ReadonlySet<BsonTypeName>])[] = [
  ['objectid', new Set(['objectId'])],
  ['timestamptz', new Set(['date'])],
  ['integer', new Set(['int', 'long'])],
  ['decimal', new Set(['decimal'])],
];

/** What the bound query's `$type` asks for, by kind. */
const TYPE_ALIASES: Partial<Record<CursorKind, string | readonly string[]>> = {
  objectid: 'objectId',
  timestamptz: 'date',
  integer: ['int', 'long'],
  decimal: 'decimal',
};

/**
 * The cursor kind of a field from the types sampled at it: ObjectId, Date, 32/64-bit integers,
 * Decimal128, each alone (nulls aside). Doubles are refused, as floating point is on every engine:
 * a field written by JavaScript clients holds doubles even for whole numbers. A field of mixed
 * types (an integer and a string, a Decimal128 and a double), arrays and sub-documents cannot be
 * a cursor either: MongoDB orders different types by type, not by value.
 */
export function cursorKindOf(column: ColumnInfo): CursorKind | null {
  const types = mongoFieldType(column)?.bsonTypes.filter((type) => type !== 'null');
  if (types === undefined || types.length === 0) return null;
  for (const [kind, allowed] of KIND_TYPES) if (types.every((type) => allowed.has(type))) return kind;
  return null;
}

/** A mark or starting value that is not a value of its cursor's kind. */
export class MongoMarkError extends Error {
  override readonly name = 'MongoMarkError';
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const FORMS: Partial<Record<CursorKind, { readonly test: (text: string) => boolean; readonly what: string }>> = {
  objectid: { test: (text) => /^[0-9a-fA-F]{24}$/.test(text), what: 'an ObjectId (24 hex digits)' },
  timestamptz: { test: (text) => parseIsoDate(text) !== null, what: 'an ISO-8601 date-time' },
  integer: {
    test: (text) => /^[+-]?\d{1,19}$/.test(text.trim()) && BigInt(text.trim()) >= INT64_MIN && BigInt(text.trim()) <= INT64_MAX,
    what: 'a 64-bit integer',
  },
  decimal: { test: (text) => /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(text.trim()), what: 'a decimal number' },
};

/**
 * Marks bind as their text: the filter turns it into the field's sampled type (ObjectId from hex,
 * Date from ISO, Long or Decimal128 from digits), as it does any filter value. Text that the
 * conversion would leave a string is refused here: compared with another type it would match
 * nothing, and the read would silently be empty.
 */
export const bindMark: MarkBinding = (text, kind) => {
  const form = FORMS[kind];
  if (form === undefined || !form.test(text)) {
    throw new MongoMarkError(
      `${JSON.stringify(text.length > 60 ? text.slice(0, 60) + '…' : text)} is not ${form?.what ?? `a ${kind} value`}`,
    );
  }
  return text;
};

function lagMillis(range: CursorRange): number {
  const lag = range.lagSeconds;
  if (lag === undefined) return 0;
  if (!TIME_CURSOR_KINDS.has(range.kind) || !Number.isSafeInteger(lag) || lag < 1) {
    throw new Error(`lagSeconds ${String(lag)} cannot apply to a ${range.kind} cursor`);
  }
  return lag * 1000;
}

/**
 * The lower bound, moved up by the lag: `max - lag > after` is `max > after + lag`, which the
 * server compares on the indexed field itself.
 */
function lowerBound(range: CursorRange): FilterCondition | undefined {
  const lag = lagMillis(range);
  const shift = (text: string): string => {
    const value = bindMark(text, range.kind) as string;
    return lag === 0 ? value : new Date((parseIsoDate(value) as Date).getTime() + lag).toISOString();
  };
  return rangeLowerBound(range, shift);
}

export interface BoundFind {
  readonly filter: Document;
  readonly options: FindOptions;
}

/**
 * The document with the largest cursor over the whole collection (no user filter): a descending
 * sort with limit 1, which an index on the field answers from its end. Only values of the kind's
 * own type count (a stray string would sort above every number); non-finite Decimal128 values
 * never bound a range.
 */
export function boundFind(range: CursorRange, columns: readonly ColumnInfo[]): BoundFind {
  const path = range.column.name;
  const type = TYPE_ALIASES[range.kind];
  if (!isFieldPath(path) || type === undefined) throw new MongoMarkError(`'${path}' cannot be a cursor`);
  const clauses: Document[] = [{ [path]: { $type: type } }];
  if (range.kind === 'decimal') {
    const { Decimal128 } = mongodb();
    clauses.push({ [path]: { $gt: Decimal128.fromString('-Infinity'), $lt: Decimal128.fromString('Infinity') } });
  }
  const lower = lowerBound(range);
  if (lower !== undefined) clauses.push(buildMongoFilter({ [path]: lower }, columns));
  return {
    filter: { $and: clauses },
    options: { sort: { [path]: -1 }, limit: 1, projection: buildProjection([path]), ...BSON_READ_OPTIONS },
  };
}

/** The bound document's cursor, minus the lag, as the result renders it (renderValue), as mark text; null for none. */
export function boundText(range: CursorRange, doc: Document | null): string | null {
  if (doc === null) return null;
  const path = range.column.name;
  const value = extractPath(doc, path.split('.'));
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) throw new MongoMarkError(`'${path}' lies inside arrays: it cannot be a cursor`);
  const lag = lagMillis(range);
  return renderedJsonText(renderValue(lag > 0 && value instanceof Date ? new Date(value.getTime() - lag) : value));
}

/** What a range read needs of its session. */
export interface RangeSession {
  /** Whether the server takes snapshot reads (a replica set or sharded cluster, 5.0+). */
  snapshotReads(signal: AbortSignal): Promise<boolean>;
  startSnapshot(): ClientSession;
  /** The bound document (null: none), raced against the signal. */
  bound(find: BoundFind, session: ClientSession | undefined, signal: AbortSignal): Promise<Document | null>;
  /** The ordinary read of a request without a range, in `session` when given. */
  read(request: TableReadRequest, signal: AbortSignal, session: ClientSession | undefined): AsyncGenerator<RowBatch>;
  /** Ends the snapshot session within a bound; never throws. */
  end(session: ClientSession): Promise<void>;
  /** A failure of this read, as the session reports it. */
  failure(error: unknown): Error;
}

/**
 * One ranged read: the snapshot session where there is one, the bound (told to `onRangeBound`
 * before any document), the documents of the range through the ordinary read, then the session
 * ended, after the last document or a failure, an abort or an early stop alike.
 */
export async function* readRange(request: TableReadRequest, signal: AbortSignal, session: RangeSession): AsyncGenerator<RowBatch> {
  const range = request.range as CursorRange;
  let find: BoundFind;
  try {
    find = boundFind(range, request.table.columns);
  } catch (error) {
    throw session.failure(error);
  }
  const snapshot = (await session.snapshotReads(signal)) ? session.startSnapshot() : undefined;
  try {
    const doc = await session.bound(find, snapshot, signal);
    let upper: string | null;
    try {
      upper = boundText(range, doc);
    } catch (error) {
      throw session.failure(error);
    }
    request.onRangeBound?.(upper);
    if (upper !== null) yield* session.read(rangeRead(request, upper, bindMark), signal, snapshot);
  } finally {
    if (snapshot !== undefined) await session.end(snapshot);
  }
}
