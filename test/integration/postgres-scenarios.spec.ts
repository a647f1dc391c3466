import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { createTempDatabase, PG_READ_PATHS, resolvedDatasource } from '../helpers/pg-database.js';
import { describeEngineScenarios, SCENARIO_ROWS, type ScenarioRow } from './engine-scenarios.js';

for (const readPath of PG_READ_PATHS) {
  describeEngineScenarios(
    `PostgreSQL (${readPath} path)`,
    async () => {
      const db = await createTempDatabase('scenarios');
      await db.query(`CREATE TABLE scenario_items (
        id int PRIMARY KEY, name varchar(64) NOT NULL, amount numeric(12,2) NOT NULL, qty int NOT NULL,
        active boolean NOT NULL, day date NOT NULL, at timestamp(3) NOT NULL, note text)`);
      for (const row of SCENARIO_ROWS) {
        await db.query('INSERT INTO scenario_items VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
          row.id,
          row.name,
          row.amount,
          row.qty,
          row.active,
          row.day,
          row.at,
          row.note,
        ]);
      }
      return {
        harness: {
          connector: new PostgresConnector(readPath),
          datasource: resolvedDatasource(db),
          schemas: ['public'],
          tableKey: 'scenario_items',
          column: (name: keyof ScenarioRow) => name,
          // PostgreSQL trims trailing zeros of fractional seconds in its text output.
          expectedRow: (row: ScenarioRow) => ({ ...row, at: row.at.replace(/\.?0+$/, '') }),
        },
        cleanup: () => db.drop(),
      };
    },
    'never skipped: PostgreSQL runs on every development and CI machine',
  );
}
