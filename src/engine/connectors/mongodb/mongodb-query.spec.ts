import { BSON, Decimal128, Int32, ObjectId, type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo, TableReadRequest } from '../shared/engine-connector.js';
import {
  BATCH_DOCS,
  buildFind,
  buildProjection,
  createDocumentRenderer,
  extractPath,
  isWildcardRequest,
  wildcardColumns,
} from './mongodb-query.js';
import { BSON_READ_OPTIONS } from './mongodb-values.js';

const asDriverReturns = (doc: Document): Document => BSON.deserialize(BSON.serialize(doc), BSON_READ_OPTIONS);
const col = (name: string, ...bsonTypes: string[]): ColumnInfo => ({ name, dataType: bsonTypes.join('|'), engineType: { bsonTypes } });

const ACCOUNTS: TableInfo = {
  schema: null,
  name: 'accounts',
  key: 'accounts',
  columns: [
    col('_id', 'objectId'),
    col('name', 'string'),
    col('address', 'object'),
    col('address.city', 'string'),
    col('address.geo', 'object'),
    col('address.geo.lat', 'double'),
    col('items', 'array', 'object'),
    col('items.sku', 'string'),
    col('opened', 'date'),
  ],
  primaryKey: ['_id'],
};
const pick = (...names: string[]) => names.map((name) => ACCOUNTS.columns.find((c) => c.name === name)!);
const request = (columns: ColumnInfo[], filters?: TableReadRequest['filters']): TableReadRequest => ({ table: ACCOUNTS, columns, filters });

describe('MongoDB projection', () => {
  it('projects exactly the requested paths and excludes _id unless requested', () => {
    expect(buildProjection(['name', 'address.city'])).toEqual({ name: 1, 'address.city': 1, _id: 0 });
  });

  it('includes _id when requested', () => {
    expect(buildProjection(['name', '_id'])).toEqual({ name: 1, _id: 1 });
  });

  it('drops a path below another requested path (MongoDB rejects that path collision)', () => {
    expect(buildProjection(['address.city', 'address', 'address.geo.lat', 'name'])).toEqual({ address: 1, name: 1, _id: 0 });
    // `address` is not a parent of `addressee`: the dot is required.
    expect(buildProjection(['address', 'addressee'])).toEqual({ address: 1, addressee: 1, _id: 0 });
  });

  it('asks only for _id when nothing is requested', () => {
    expect(buildProjection([])).toEqual({ _id: 1 });
  });
});

describe('MongoDB wildcard', () => {
  it('["*"] (the planner passes every discovered column) reads every top-level field, whole', () => {
    const all = request([...ACCOUNTS.columns]);
    expect(isWildcardRequest(all)).toBe(true);
    expect(buildFind(all).fields.map((f) => f.key)).toEqual(['_id', 'name', 'address', 'items', 'opened']);
    expect(buildFind(all).options.projection).toEqual({ _id: 1, name: 1, address: 1, items: 1, opened: 1 });
    expect(wildcardColumns(ACCOUNTS).map((c) => c.name)).toEqual(['_id', 'name', 'address', 'items', 'opened']);
  });

  it('an explicit list is read as given', () => {
    expect(isWildcardRequest(request(pick('name', 'address.city')))).toBe(false);
    expect(
      isWildcardRequest(
        request(pick('opened', '_id', 'name', 'address', 'address.city', 'address.geo', 'address.geo.lat', 'items', 'items.sku')),
      ),
    ).toBe(false);
  });

  it('a table without nested paths needs no distinction', () => {
    const flat: TableInfo = { ...ACCOUNTS, columns: pick('_id', 'name', 'opened') };
    expect(isWildcardRequest({ table: flat, columns: flat.columns })).toBe(false);
  });
});

describe('MongoDB find command', () => {
  it('sorts by _id, asks for exact BSON types and batches of BATCH_DOCS, and carries the filter', () => {
    const plan = buildFind(request(pick('opened', 'name'), { opened: { gte: ['2026-01-01'] } }));
    expect(plan.collection).toBe('accounts');
    expect(plan.filter).toEqual({ opened: { $gte: new Date('2026-01-01T00:00:00.000Z') } });
    expect(plan.options).toEqual({
      projection: { opened: 1, name: 1, _id: 0 },
      sort: { _id: 1 },
      batchSize: BATCH_DOCS,
      promoteValues: false,
      promoteLongs: false,
      promoteBuffers: false,
      bsonRegExp: true,
    });
    expect(plan.options).not.toHaveProperty('maxTimeMS');
    expect(plan.options).not.toHaveProperty('noCursorTimeout');
  });

  it('filters on a field that is not projected', () => {
    const plan = buildFind(request(pick('name'), { 'address.city': { eq: ['Porto'] } }));
    expect(plan.filter).toEqual({ 'address.city': { $eq: 'Porto' } });
    expect(plan.options.projection).toEqual({ name: 1, _id: 0 });
  });

  it('uses the collection name verbatim, dots included', () => {
    const dotted: TableInfo = { ...ACCOUNTS, name: 'sales.2026', key: 'sales.2026' };
    expect(buildFind({ table: dotted, columns: [] }).collection).toBe('sales.2026');
  });
});

describe('MongoDB path extraction and row rendering', () => {
  const doc = asDriverReturns({
    _id: new ObjectId('65f0c0ffee0000000000abcd'),
    name: 'Ana',
    address: { city: 'Lisbon', geo: { lat: 38.7 }, zip: null },
    items: [{ sku: 'A1', qty: new Int32(2) }, { qty: new Int32(1) }, 'loose', { sku: 'B2' }],
    amount: Decimal128.fromString('10.50'),
  });

  it('reads nested paths, through arrays of documents, and reports missing ones as undefined', () => {
    expect(extractPath(doc, ['address', 'city'])).toBe('Lisbon');
    expect(extractPath(doc, ['address', 'zip'])).toBeNull();
    expect(extractPath(doc, ['address', 'nowhere'])).toBeUndefined();
    expect(extractPath(doc, ['name', 'first'])).toBeUndefined();
    expect(extractPath(doc, ['items', 'sku'])).toEqual(['A1', 'B2']);
  });

  it('renders the requested keys in request order, nested paths under flat keys', () => {
    const render = createDocumentRenderer(buildFind(request(pick('address.city', '_id', 'items.sku', 'name'))).fields);
    expect(render(doc)).toBe('{"address.city":"Lisbon","_id":"65f0c0ffee0000000000abcd","items.sku":["A1","B2"],"name":"Ana"}');
  });

  it('renders a parent and its child together as two keys', () => {
    const render = createDocumentRenderer(buildFind(request(pick('address', 'address.geo.lat'))).fields);
    expect(render(doc)).toBe('{"address":{"city":"Lisbon","geo":{"lat":38.7},"zip":null},"address.geo.lat":38.7}');
  });

  it('renders a missing field as null', () => {
    const render = createDocumentRenderer(buildFind(request(pick('opened', 'address.city'))).fields);
    expect(render(asDriverReturns({ _id: 1 }))).toBe('{"opened":null,"address.city":null}');
  });

  it('renders an empty projection as an empty object', () => {
    expect(createDocumentRenderer([])(doc)).toBe('{}');
  });

  it('produces a row JSON.parse reads back to the same keys', () => {
    const render = createDocumentRenderer(buildFind(request([...ACCOUNTS.columns])).fields);
    expect(Object.keys(JSON.parse(render(doc)) as object)).toEqual(['_id', 'name', 'address', 'items', 'opened']);
  });
});
