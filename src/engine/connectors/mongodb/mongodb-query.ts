import type { Document, FindOptions } from 'mongodb';
import type { ColumnInfo, TableInfo, TableReadRequest } from '../shared/engine-connector.js';
import { buildMongoFilter } from './mongodb-filter.js';
import { isSubDocument } from './mongodb-types.js';
import { jsonString } from '../shared/json-text.js';
import { BSON_READ_OPTIONS, renderValue } from './mongodb-values.js';

/** Documents per server batch (firstBatch and each getMore); the server also caps a batch at 16 MiB. */
export const BATCH_DOCS = 1_000;

/** One output key: the requested path, read from the returned document by its segments. */
export interface ReadField {
  readonly key: string;
  readonly segments: readonly string[];
}

export interface FindPlan {
  readonly collection: string;
  readonly filter: Document;
  readonly options: FindOptions;
  readonly fields: readonly ReadField[];
}

const isTopLevel = (column: ColumnInfo): boolean => !column.name.includes('.');

/**
 * What `["*"]` reads: every top-level field, whole (sub-documents and arrays included), in
 * discovery order. The nested paths discovery also lists (`address.city`) would only repeat data
 * already inside their top-level field.
 */
export function wildcardColumns(table: TableInfo): ColumnInfo[] {
  return table.columns.filter(isTopLevel);
}

/**
 * The planner expands `["*"]` to every discovered column, nested paths included, and a request
 * carries no wildcard flag; so a request for exactly the table's columns, in discovery order, is
 * taken for `*` when the table has nested paths. (Listing every nested path and its parents by
 * hand, in discovery order, is the only explicit request read the same way.)
 */
export function isWildcardRequest(request: TableReadRequest): boolean {
  const { columns, table } = request;
  if (columns.length !== table.columns.length || columns.every(isTopLevel)) return false;
  return columns.every((column, i) => column.name === table.columns[i].name);
}

/**
 * The find projection for these paths: exactly them, with `_id` excluded unless asked for.
 * A path below another requested path is left out (MongoDB rejects `{a: 1, 'a.b': 1}` as a path
 * collision); its value is read from the parent's sub-document instead.
 */
export function buildProjection(paths: readonly string[]): Document {
  const unique = [...new Set(paths)];
  const kept = unique.filter((path) => !unique.some((other) => path.startsWith(other + '.')));
  const entries: [string, 0 | 1][] = kept.map((path) => [path, 1]);
  if (kept.length === 0) return { _id: 1 };
  if (!kept.some((path) => path === '_id' || path.startsWith('_id.'))) entries.push(['_id', 0]);
  return Object.fromEntries(entries);
}

/**
 * The find command for one read: projection of the requested paths, sort on `_id` (the primary-key
 * order of docs/value-mapping.md, "The result document"), exact BSON types. No maxTimeMS and no
 * noCursorTimeout: a long read is bounded by the extraction timeout and its abort (which kills the
 * cursor); the server reaps a cursor only after 10 idle minutes, while this one is read
 * continuously, and noCursorTimeout is refused on Atlas shared tiers and would leak cursors of a
 * crashed worker.
 */
export function buildFind(request: TableReadRequest): FindPlan {
  const columns = isWildcardRequest(request) ? wildcardColumns(request.table) : request.columns;
  const fields = columns.map((column) => ({ key: column.name, segments: column.name.split('.') }));
  return {
    collection: request.table.name,
    filter: buildMongoFilter(request.filters, request.table.columns),
    options: {
      projection: buildProjection(columns.map((column) => column.name)),
      sort: { _id: 1 },
      batchSize: BATCH_DOCS,
      ...BSON_READ_OPTIONS,
    },
    fields,
  };
}

function extract(value: unknown, segments: readonly string[], i: number): unknown {
  if (i === segments.length) return value;
  if (Array.isArray(value)) {
    // Through an array, as MongoDB's `$items.sku`: the values of the elements that have one.
    const out: unknown[] = [];
    for (const element of value) {
      if (!Array.isArray(element) && !isSubDocument(element)) continue;
      const found = extract(element, segments, i);
      if (found !== undefined) out.push(found);
    }
    return out;
  }
  if (isSubDocument(value) && Object.hasOwn(value, segments[i])) return extract(value[segments[i]], segments, i + 1);
  return undefined;
}

/** The value at a dotted path of a document; undefined when it is missing. */
export function extractPath(doc: Document, segments: readonly string[]): unknown {
  return extract(doc, segments, 0);
}

/**
 * Renders one document as a JSON object with exactly the requested keys, in request order.
 * A nested path comes out under its flat key (`"address.city": "Lisbon"`), not rebuilt as
 * `{"address": {"city": …}}`: one key per requested field keeps the projection-order contract
 * of every engine, and `a`, `b`, `a.c` requested together stay three keys in that order.
 */
export function createDocumentRenderer(fields: readonly ReadField[]): (doc: Document) => string {
  if (fields.length === 0) return () => '{}';
  const prefixes = fields.map((field, i) => (i === 0 ? '{' : ',') + jsonString(field.key) + ':');
  const keys = fields.map((field) => (field.segments.length === 1 ? field.segments[0] : null));
  return (doc) => {
    let out = '';
    for (let i = 0; i < fields.length; i++) {
      const key = keys[i];
      const value = key !== null ? (Object.hasOwn(doc, key) ? doc[key] : undefined) : extractPath(doc, fields[i].segments);
      out += prefixes[i] + renderValue(value);
    }
    return out + '}';
  };
}
