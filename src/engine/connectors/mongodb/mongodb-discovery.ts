import type { Db, Document } from 'mongodb';
import { mongodb } from './mongodb-driver.js';
import type { CatalogBudget } from '../shared/catalog-budget.js';
import type { ColumnInfo, SchemaSnapshot, TableInfo } from '../shared/engine-connector.js';
import { type BsonTypeName, bsonTypeOf, describeFieldType, isSubDocument, type MongoFieldType } from './mongodb-types.js';
import { BSON_READ_OPTIONS } from './mongodb-values.js';

/**
 * MongoDB has no catalog of fields: they are discovered by sampling documents
 * (docs/value-mapping.md, "MongoDB").
 *
 * Per collection: the first HEAD_DOCS documents in `_id` order (deterministic, so the field order
 * is stable between discoveries), then, when there are more, a `$sample` of SAMPLE_DOCS to catch
 * rarer fields. Views are read with a plain `limit` (a `$sample` or sort on a view runs its whole
 * pipeline). Fields are listed in first-seen order, `_id` first, with every nested path
 * (`address`, `address.city`; arrays of documents give `items.sku`), so a request can name a
 * parent or any path below it.
 */
export const HEAD_DOCS = 100;
export const SAMPLE_DOCS = 1_000;
export const VIEW_SAMPLE_DOCS = 1_000;
/** Guards against documents used as maps (keys are ids): past this, new paths are not listed. */
export const MAX_FIELD_PATHS = 1_000;
/** Deeper paths are not listed; their values are still read whole through a parent. */
export const MAX_PATH_DEPTH = 20;
/** Server-side bound of each sampling query (the original used 30 s for schema discovery: docs/compatibility.md#discovery). */
export const DISCOVERY_MAX_TIME_MS = 30_000;
/** Collections sampled at the same time. */
const PARALLEL_SAMPLES = 4;

/**
 * A key the query language can address as a path segment: not empty, no `.` (a literal dot is
 * indistinguishable from nesting in a path) and no leading `$` (operators). Such fields are not
 * listed; they still come out inside their parent document.
 */
export function isAddressableKey(key: string): boolean {
  return key !== '' && !key.includes('.') && !key.startsWith('$') && !key.includes('\u0000');
}

/**
 * Accumulates field paths and their BSON types over sampled documents. What it keeps (each new
 * path, each new type of a path) is charged to `budget`, which throws CatalogTooLargeError once
 * passed; the sampled documents themselves are not kept.
 */
export class FieldCollector {
  /** Insertion order is first-seen order. */
  private readonly paths = new Map<string, BsonTypeName[]>();
  private documents = 0;

  constructor(private readonly budget?: CatalogBudget) {}

  get sampled(): number {
    return this.documents;
  }

  add(doc: Document): void {
    this.documents++;
    this.walk(doc, '', 0);
  }

  /**
   * Columns in first-seen order, `_id` first, each nested path right after its parent's earlier
   * children (`address`, `address.city`, `address.zip`, then the next top-level field) even when
   * a later document revealed it. `withId` lists `_id` even when no sampled document had one.
   */
  columns(withId: boolean): ColumnInfo[] {
    const children = new Map<string, string[]>();
    for (const path of this.paths.keys()) {
      const dot = path.lastIndexOf('.');
      const parent = dot < 0 ? '' : path.slice(0, dot);
      // A path is always noted after its parent, so every parent is in the map.
      const siblings = children.get(parent) ?? [];
      siblings.push(path);
      children.set(parent, siblings);
    }
    const ordered: string[] = [];
    const visit = (parent: string): void => {
      for (const path of children.get(parent) ?? []) {
        ordered.push(path);
        visit(path);
      }
    };
    const roots = children.get('') ?? [];
    if (roots.includes('_id')) children.set('', ['_id', ...roots.filter((path) => path !== '_id')]);
    visit('');
    if (withId && !this.paths.has('_id')) ordered.unshift('_id');
    return ordered.map((name) => {
      const types = this.paths.get(name) ?? [];
      const engineType: MongoFieldType = { bsonTypes: [...types] };
      return { name, dataType: describeFieldType(types), engineType };
    });
  }

  private note(path: string, type: BsonTypeName): boolean {
    let types = this.paths.get(path);
    if (types === undefined) {
      if (this.paths.size >= MAX_FIELD_PATHS) return false;
      this.budget?.charge(path.length);
      types = [];
      this.paths.set(path, types);
    }
    if (!types.includes(type)) {
      this.budget?.charge(type.length);
      types.push(type);
    }
    return true;
  }

  private walk(doc: Record<string, unknown>, prefix: string, depth: number): void {
    for (const key of Object.keys(doc)) {
      if (!isAddressableKey(key)) continue;
      const path = prefix + key;
      const value = doc[key];
      if (!this.note(path, bsonTypeOf(value))) continue;
      if (depth + 1 >= MAX_PATH_DEPTH) continue;
      if (isSubDocument(value)) this.walk(value, path + '.', depth + 1);
      else if (Array.isArray(value)) {
        for (const element of value) {
          // A query on the path matches elements: their types are the path's types too.
          this.note(path, bsonTypeOf(element));
          if (isSubDocument(element)) this.walk(element, path + '.', depth + 1);
        }
      }
    }
  }
}

export interface CollectionEntry {
  readonly name: string;
  /** `collection`, `view` or `timeseries` (listCollections' type). */
  readonly type?: string;
}

/**
 * The table of one collection from its sampled fields. `_id` is the primary key. An empty
 * collection (or one that could not be sampled) is discovered with `_id` alone: every document
 * of a collection has one, and other names cannot be known. A view lists `_id` only when its
 * documents have it (its pipeline may drop it), or when it is empty.
 */
export function toTableInfo(entry: CollectionEntry, collector: FieldCollector): TableInfo {
  const withId = entry.type !== 'view' || collector.sampled === 0;
  const columns = collector.columns(withId);
  const hasId = columns.some((column) => column.name === '_id');
  return { schema: null, name: entry.name, key: entry.name, columns, primaryKey: hasId ? ['_id'] : [] };
}

/**
 * Collections and views of the database, `system.*` excluded, sorted by name. Each name kept is
 * charged to `budget` as the listing arrives (a server may list names without end).
 */
export async function listCollections(db: Db, signal?: AbortSignal, budget?: CatalogBudget): Promise<CollectionEntry[]> {
  // nameOnly + authorizedCollections: also works for a login that may read some collections
  // but lacks the listCollections privilege; type still says collection / view / timeseries.
  const entries: CollectionEntry[] = [];
  for await (const info of db.listCollections({}, { nameOnly: true, authorizedCollections: true, signal })) {
    if (typeof info.name !== 'string' || info.name.startsWith('system.')) continue;
    const type = typeof info.type === 'string' ? info.type : undefined;
    budget?.charge(info.name.length + (type?.length ?? 0));
    entries.push({ name: info.name, type });
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Streams the sample of one collection into the collector (documents are not kept). */
export async function sampleCollection(db: Db, entry: CollectionEntry, collector: FieldCollector, signal?: AbortSignal): Promise<void> {
  const collection = db.collection(entry.name);
  // The signal makes the driver fail a query in flight at once (dropping its connection; the
  // server then stops it) and kill an open cursor: an aborted discovery leaves nothing running.
  const common = { maxTimeMS: DISCOVERY_MAX_TIME_MS, batchSize: 200, ...BSON_READ_OPTIONS, signal };
  if (entry.type === 'view') {
    for await (const doc of collection.find({}, { ...common, limit: VIEW_SAMPLE_DOCS })) collector.add(doc);
    return;
  }
  // Time-series collections have no `_id` index: their head is taken in natural order.
  const sort = entry.type === 'timeseries' ? undefined : { _id: 1 as const };
  for await (const doc of collection.find({}, { ...common, sort, limit: HEAD_DOCS })) collector.add(doc);
  if (collector.sampled < HEAD_DOCS) return;
  for await (const doc of collection.aggregate([{ $sample: { size: SAMPLE_DOCS } }], common)) collector.add(doc);
}

/**
 * One collection's table. A server refusal for that collection (no privilege, a view whose
 * pipeline fails, `$sample` refused) keeps what was sampled until then (at least `_id`) instead of
 * failing the discovery of the others; a read of that collection then reports the server's
 * error. Network and driver errors fail the discovery.
 */
async function discoverCollection(db: Db, entry: CollectionEntry, signal?: AbortSignal, budget?: CatalogBudget): Promise<TableInfo> {
  const collector = new FieldCollector(budget);
  try {
    await sampleCollection(db, entry, collector, signal);
  } catch (error) {
    if (!(error instanceof mongodb().MongoServerError)) throw error;
  }
  return toTableInfo(entry, collector);
}

/** Every collection of the connected database (schemas do not exist in MongoDB); what it keeps is charged to `budget`. */
export async function discoverDatabase(db: Db, signal?: AbortSignal, budget?: CatalogBudget): Promise<SchemaSnapshot> {
  const entries = await listCollections(db, signal, budget);
  const tables: TableInfo[] = new Array<TableInfo>(entries.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const index = next++;
      tables[index] = await discoverCollection(db, entries[index], signal, budget);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_SAMPLES, entries.length) }, worker));
  return { tables: new Map(tables.map((table) => [table.key, table])) };
}
