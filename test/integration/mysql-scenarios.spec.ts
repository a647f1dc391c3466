import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { createTempMariaDatabase, resolvedMySqlDatasource } from '../helpers/mariadb-database.js';
import { describeEngineScenarios, SCENARIO_ROWS, type ScenarioRow } from './engine-scenarios.js';

describeEngineScenarios(
  'MariaDB (MySQL engine)',
  async () => {
    const db = await createTempMariaDatabase('scenarios');
    await db.query(`CREATE TABLE scenario_items (
      id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, amount DECIMAL(12,2) NOT NULL, qty INT NOT NULL,
      active TINYINT(1) NOT NULL, day DATE NOT NULL, at DATETIME(3) NOT NULL, note TEXT NULL) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    for (const row of SCENARIO_ROWS) {
      await db.query('INSERT INTO scenario_items VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        row.id,
        row.name,
        row.amount,
        row.qty,
        row.active ? 1 : 0,
        row.day,
        row.at.replace('T', ' '),
        row.note,
      ]);
    }
    return {
      harness: {
        connector: new MySqlConnector(),
        datasource: resolvedMySqlDatasource(db),
        schemas: [],
        tableKey: 'scenario_items',
        column: (name: keyof ScenarioRow) => name,
        expectedRow: (row: ScenarioRow) => ({ ...row }),
      },
      cleanup: () => db.drop(),
    };
  },
  'never skipped: MariaDB runs on every development and CI machine',
);
