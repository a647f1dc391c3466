import { Decimal128, type Document, Int32 } from 'mongodb';
import { Query } from 'mingo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { FieldCollector, toTableInfo } from '../../src/engine/connectors/mongodb/mongodb-discovery.js';
import { buildMongoFilter } from '../../src/engine/connectors/mongodb/mongodb-filter.js';
import { MongoDbConnector } from '../../src/engine/connectors/mongodb/mongodb.connector.js';
import {
  createTempMongoDatabase,
  MONGO_SKIP_REASON,
  resolvedMongoDatasource,
  TEST_MONGO_URL,
  type TempMongoDatabase,
} from '../helpers/mongo-database.js';
import { FILTER_CASES, FILTER_ITEMS, type FilterItem } from './filter-cases.js';

/**
 * The differential filter cases (the same ids as PostgreSQL and MariaDB) on MongoDB documents.
 * Some SQL NULLs are stored as missing fields, some as null: both must behave as SQL NULL.
 */
const MISSING_INSTEAD_OF_NULL = new Set(['4:qty', '4:active', '4:category', '9:active']);

function toDocument(item: FilterItem): Document {
  const doc: Document = { _id: new Int32(item.id) };
  const put = (key: string, value: unknown) => {
    if (value === null && MISSING_INSTEAD_OF_NULL.has(`${item.id}:${key}`)) return;
    doc[key] = value;
  };
  put('label', item.label);
  put('amount', item.amount === null ? null : Decimal128.fromString(item.amount));
  put('qty', item.qty === null ? null : new Int32(item.qty));
  put('active', item.active);
  put('day', item.day === null ? null : new Date(`${item.day}T00:00:00.000Z`));
  // timestamp without time zone: stored as that wall time in UTC.
  put('at', item.at === null ? null : new Date(`${item.at.replace(' ', 'T')}Z`));
  put('category', item.category);
  return doc;
}

const DOCUMENTS = FILTER_ITEMS.map(toDocument);

/**
 * mingo implements MongoDB's query language in JavaScript. It does not know BSON number classes,
 * so Int32/Long/Decimal128 become plain numbers on both sides (every value here is exact as a
 * double); the server suite below is the authority on Decimal128 comparisons.
 */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Date || value instanceof RegExp || value === null || typeof value !== 'object') return value;
  const tag = (value as { _bsontype?: string })._bsontype;
  if (tag === 'Int32' || tag === 'Double') return (value as { value: number }).value;
  if (tag === 'Decimal128' || tag === 'Long') return Number(String(value));
  if (tag) throw new Error(`no plain form for ${tag}`);
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, plain(item)]));
}

function matches(doc: Document, query: Document): boolean {
  return new Query(plain(query) as Record<string, unknown>).test(plain(doc) as Record<string, unknown>);
}

/** The collection's fields as discovery reports them: the translation reads their sampled types. */
function discoveredTable(): TableInfo {
  const collector = new FieldCollector();
  for (const doc of DOCUMENTS) collector.add(doc);
  return toTableInfo({ name: 'items', type: 'collection' }, collector);
}

describe('MongoDB filter translation against the differential cases (evaluated by mingo, an implementation of MongoDB queries)', () => {
  const table = discoveredTable();

  it('covers all ten operators', () => {
    const operators = new Set(FILTER_CASES.flatMap((c) => Object.values(c.filters).flatMap((condition) => Object.keys(condition))));
    expect(operators.size).toBe(10);
  });

  it.each(FILTER_CASES)('$name', ({ filters, ids }) => {
    const query = buildMongoFilter(filters, table.columns);
    const selected = DOCUMENTS.filter((doc) => matches(doc, query)).map((doc) => (doc._id as Int32).value);
    expect(selected).toEqual(ids);
  });
});

const readIds = async (batches: AsyncIterable<RowBatch>): Promise<number[]> => {
  const parts: string[] = [];
  for await (const batch of batches) parts.push(batch.json.toString('utf8'));
  return (JSON.parse(`[${parts.join(',')}]`) as { _id: number }[]).map((row) => row._id);
};

if (!TEST_MONGO_URL) {
  describe.skip(`differential filters on MongoDB — SKIPPED: ${MONGO_SKIP_REASON}`, () => {
    it.skip('needs a server', () => undefined);
  });
  process.stdout.write(`\n[mongodb-filters] real server: SKIPPED — ${MONGO_SKIP_REASON}\n`);
} else {
  describe('differential filters on MongoDB', () => {
    let db: TempMongoDatabase;
    let session: ConnectorSession;
    let table: TableInfo;

    beforeAll(async () => {
      db = await createTempMongoDatabase('filters');
      await db.db.collection('items').insertMany(DOCUMENTS as never[]);
      session = await new MongoDbConnector().open(resolvedMongoDatasource(db), { connectTimeoutMs: 10_000 });
      table = (await session.discover(null, new AbortController().signal)).tables.get('items') as TableInfo;
    });
    afterAll(async () => {
      await session?.close();
      await db?.drop();
    });

    it.each(FILTER_CASES)('$name', async ({ filters, ids }) => {
      const id = table.columns.filter((column) => column.name === '_id');
      expect(await readIds(session.readRows({ table, columns: id, filters }, new AbortController().signal))).toEqual(ids);
    });
  });
}
