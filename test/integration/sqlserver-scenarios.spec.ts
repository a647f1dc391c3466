import { SqlServerConnector } from '../../src/engine/connectors/sqlserver/sqlserver.connector.js';
import {
  createTempSqlServerDatabase,
  parseSqlServerUrl,
  resolvedSqlServerDatasource,
  SQLSERVER_SKIP_REASON,
  TEST_MSSQL_URL,
} from '../helpers/sqlserver-database.js';
import { describeEngineScenarios, SCENARIO_ROWS, type ScenarioRow } from './engine-scenarios.js';

/**
 * The shared scenarios on SQL Server: bit for `active`, datetime2(3) for `at`, nvarchar(max)
 * for `note`, and a case-sensitive collation on `name` so `like` matches as on the others.
 */
const prepare = async () => {
  const db = await createTempSqlServerDatabase(parseSqlServerUrl(TEST_MSSQL_URL!), 'scenarios');
  await db.query(`CREATE TABLE dbo.scenario_items (
    id int NOT NULL PRIMARY KEY, name nvarchar(64) COLLATE Latin1_General_100_CS_AS NOT NULL, amount decimal(12,2) NOT NULL,
    qty int NOT NULL, active bit NOT NULL, day date NOT NULL, at datetime2(3) NOT NULL, note nvarchar(max) NULL)`);
  for (const row of SCENARIO_ROWS) {
    await db.query(
      `INSERT INTO dbo.scenario_items VALUES (@id, @name, CAST(@amount AS decimal(12,2)), @qty, @active, CAST(@day AS date), CAST(@at AS datetime2(3)), @note)`,
      { ...row },
    );
  }
  return {
    harness: {
      connector: new SqlServerConnector(),
      datasource: resolvedSqlServerDatasource(db),
      schemas: ['dbo'],
      tableKey: 'scenario_items',
      column: (name: keyof ScenarioRow) => name,
      expectedRow: (row: ScenarioRow) => ({ ...row }),
    },
    cleanup: () => db.drop(),
  };
};

describeEngineScenarios('SQL Server', TEST_MSSQL_URL ? prepare : undefined, SQLSERVER_SKIP_REASON);
