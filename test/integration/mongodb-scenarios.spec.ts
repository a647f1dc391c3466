import { Decimal128, Int32 } from 'mongodb';
import { MongoDbConnector } from '../../src/engine/connectors/mongodb/mongodb.connector.js';
import { createTempMongoDatabase, MONGO_SKIP_REASON, resolvedMongoDatasource, TEST_MONGO_URL } from '../helpers/mongo-database.js';
import { describeEngineScenarios, SCENARIO_ROWS, type ScenarioRow } from './engine-scenarios.js';

/**
 * The shared scenarios on MongoDB: `scenario_items` documents keyed by `_id` (the scenarios'
 * `id`), decimals as Decimal128, integers as Int32, the day as a Date at midnight UTC and the
 * timestamp as a Date (UTC). Mongo renders both dates as ISO-8601 with `Z` and milliseconds.
 */
async function prepare() {
  const db = await createTempMongoDatabase('scenarios');
  try {
    await db.db.collection('scenario_items').insertMany(
      SCENARIO_ROWS.map((row) => ({
        _id: new Int32(row.id),
        name: row.name,
        amount: Decimal128.fromString(row.amount),
        qty: new Int32(row.qty),
        active: row.active,
        day: new Date(`${row.day}T00:00:00.000Z`),
        at: new Date(`${row.at}Z`),
        note: row.note,
      })) as never[],
    );
  } catch (error) {
    await db.drop();
    throw error;
  }
  return {
    harness: {
      connector: new MongoDbConnector(),
      datasource: resolvedMongoDatasource(db),
      schemas: [],
      tableKey: 'scenario_items',
      column: (name: keyof ScenarioRow) => (name === 'id' ? '_id' : name),
      expectedRow: (row: ScenarioRow) => ({
        _id: row.id,
        name: row.name,
        amount: row.amount,
        qty: row.qty,
        active: row.active,
        day: `${row.day}T00:00:00.000Z`,
        at: `${row.at}Z`,
        note: row.note,
      }),
    },
    cleanup: () => db.drop(),
  };
}

describeEngineScenarios('MongoDB', TEST_MONGO_URL ? prepare : undefined, MONGO_SKIP_REASON);
