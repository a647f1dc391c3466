import { OracleConnector } from '../../src/engine/connectors/oracle/oracle.connector.js';
import {
  createTempOracleSchema,
  ORACLE_SKIP_REASON,
  parseOracleUrl,
  resolvedOracleDatasource,
  TEST_ORACLE_URL,
} from '../helpers/oracle-database.js';
import { describeEngineScenarios, SCENARIO_ROWS, type ScenarioRow } from './engine-scenarios.js';

/**
 * The shared scenarios on Oracle. Column choices and what they render as:
 * - ID, QTY NUMBER(10) → JSON integers; AMOUNT NUMBER(12,2) → exact strings padded to the scale;
 * - ACTIVE NUMBER(1): Oracle before 23ai has no BOOLEAN column type and NUMBER(1) is how flags
 *   are stored, so it renders as the number it is (1 / 0); `eq [true]` binds 1;
 * - DAY DATE: Oracle DATE always has a time of day → `YYYY-MM-DDT00:00:00`;
 * - AT TIMESTAMP(3) → ISO at millisecond precision, no offset;
 * - NOTE CLOB → string (fetched inline), NULL as null.
 */
async function prepare() {
  const db = await createTempOracleSchema(parseOracleUrl(TEST_ORACLE_URL!));
  try {
    const table = db.name('SCENARIO_ITEMS');
    await db.execute(`CREATE TABLE "${table}" (
      "ID" NUMBER(10) PRIMARY KEY, "NAME" VARCHAR2(64) NOT NULL, "AMOUNT" NUMBER(12,2) NOT NULL, "QTY" NUMBER(10) NOT NULL,
      "ACTIVE" NUMBER(1) NOT NULL, "DAY" DATE NOT NULL, "AT" TIMESTAMP(3) NOT NULL, "NOTE" CLOB)`);
    for (const row of SCENARIO_ROWS) {
      await db.execute(
        `INSERT INTO "${table}" VALUES (:1, :2, TO_NUMBER(:3), :4, :5, TO_DATE(:6, 'YYYY-MM-DD'), TO_TIMESTAMP(:7, 'YYYY-MM-DD"T"HH24:MI:SS.FF3'), :8)`,
        [row.id, row.name, row.amount, row.qty, row.active ? 1 : 0, row.day, row.at, row.note],
      );
    }
    return {
      harness: {
        connector: new OracleConnector(),
        datasource: resolvedOracleDatasource(db.server),
        schemas: [],
        tableKey: table,
        column: (name: keyof ScenarioRow) => name.toUpperCase(),
        expectedRow: (row: ScenarioRow) => ({
          ID: row.id,
          NAME: row.name,
          AMOUNT: row.amount,
          QTY: row.qty,
          ACTIVE: row.active ? 1 : 0,
          DAY: `${row.day}T00:00:00`,
          AT: row.at,
          NOTE: row.note,
        }),
      },
      cleanup: () => db.drop(),
    };
  } catch (error) {
    await db.drop();
    throw error;
  }
}

describeEngineScenarios('Oracle', TEST_ORACLE_URL ? prepare : undefined, ORACLE_SKIP_REASON);
