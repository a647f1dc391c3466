import { randomBytes } from 'node:crypto';
import { oracleDriver, type OracleBindValue, type OracleConnection } from '../../src/engine/connectors/oracle/oracle-driver.js';
import type { ResolvedDatasource } from '../../src/engine/connectors/shared/engine-connector.js';
import { datasourceRecord } from '../../src/engine/testing/datasource-records.js';
import { DatasourceType } from '../../src/engine/connectors/datasource-type.js';

/**
 * Oracle test fixtures. No Oracle server runs on the development machines: everything here is
 * used only when TEST_ORACLE_URL (`oracle://user:pass@host:port/service`) points at one, e.g. the
 * gvenzl/oracle-free container of docker/compose.yml with docker/fixtures/oracle/init.sql:
 *
 *   TEST_ORACLE_URL=oracle://fetcher:secret@127.0.0.1:1521/FREEPDB1 npm run test:only -- oracle
 *
 * Nothing connects when the variable is unset. Each fixture creates uniquely prefixed objects in
 * the login's own schema (so parallel suites and the sample tables never collide) and drops every
 * object with its prefix afterwards, including what a failed test left behind.
 */

export const TEST_ORACLE_URL = process.env.TEST_ORACLE_URL?.trim() || undefined;

export const ORACLE_SKIP_REASON =
  'set TEST_ORACLE_URL=oracle://user:pass@host:port/service to run against a server (docker/compose.yml starts one)';

/** The second owner docker/fixtures/oracle/init.sql creates, with a table granted to the app user. */
export const ORACLE_FIXTURE_OTHER_OWNER = 'FETCHER_LEDGER';

export interface OracleTestServer {
  readonly host: string;
  readonly port: number;
  readonly serviceName: string;
  readonly user: string;
  readonly password: string;
}

/** `oracle://user:pass@host:port/service` (user and password percent-decoded; port 1521 by default). */
export function parseOracleUrl(url: string): OracleTestServer {
  const parsed = new URL(url);
  if (parsed.protocol !== 'oracle:') throw new Error('TEST_ORACLE_URL must start with oracle://');
  const serviceName = decodeURIComponent(parsed.pathname.replace(/^\/+/, ''));
  if (serviceName === '' || parsed.username === '')
    throw new Error('TEST_ORACLE_URL needs a user and a service name: oracle://user:pass@host:port/service');
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? 1521 : Number(parsed.port),
    serviceName,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
}

export interface TempOracleSchema {
  readonly server: OracleTestServer;
  /** The login's schema (upper case): where the fixture's objects live. */
  readonly owner: string;
  /** The server's major version (19, 21, 23…): BOOLEAN and VECTOR need 23, JSON 21. */
  readonly majorVersion: number;
  /** This fixture's object prefix (`FX<random>_`); every object whose name starts with it is dropped. */
  readonly prefix: string;
  /** The unique name of a fixture object: `FX<random>_<BASE>` (upper case, ≤ 30 characters). */
  name(base: string): string;
  /** Runs one statement (auto-committed); rows as arrays for a query. */
  execute(sql: string, binds?: readonly OracleBindValue[]): Promise<unknown[][]>;
  /** Drops every object carrying this fixture's prefix. Safe to call twice. */
  drop(): Promise<void>;
}

export async function openOracle(server: OracleTestServer): Promise<OracleConnection> {
  return oracleDriver().getConnection({
    user: server.user,
    password: server.password,
    connectString: `${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}/${server.serviceName}`,
  });
}

export async function createTempOracleSchema(server: OracleTestServer = parseOracleUrl(requireUrl())): Promise<TempOracleSchema> {
  const prefix = `FX${randomBytes(4).toString('hex').toUpperCase().slice(0, 6)}_`;
  const connection = await openOracle(server);
  const execute = async (sql: string, binds: readonly OracleBindValue[] = []): Promise<unknown[][]> => {
    const result = await connection.execute(sql, binds, { autoCommit: true, outFormat: oracleDriver().OUT_FORMAT_ARRAY });
    return result.rows ?? [];
  };
  const [[owner]] = (await execute('SELECT USER FROM DUAL')) as [[string]];
  const [[version]] = (await execute("SELECT VERSION FROM PRODUCT_COMPONENT_VERSION WHERE PRODUCT LIKE 'Oracle%' AND ROWNUM = 1")) as [
    [string],
  ];
  let dropped: Promise<void> | undefined;
  return {
    server,
    owner,
    prefix,
    majorVersion: Number.parseInt(version, 10),
    name: (base) => (prefix + base.toUpperCase()).slice(0, 30),
    execute,
    drop() {
      dropped ??= (async () => {
        try {
          const objects = (await execute(
            "SELECT OBJECT_NAME, OBJECT_TYPE FROM USER_OBJECTS WHERE OBJECT_NAME LIKE :1 ESCAPE '\\' AND OBJECT_TYPE IN ('TABLE', 'VIEW', 'FUNCTION')",
            [prefix.replace('_', '\\_') + '%'],
          )) as [string, string][];
          // Views and functions first: nothing depends on them, they may depend on the tables.
          objects.sort((a, b) => (a[1] === 'TABLE' ? 1 : 0) - (b[1] === 'TABLE' ? 1 : 0));
          for (const [name, type] of objects) {
            const suffix = type === 'TABLE' ? ' CASCADE CONSTRAINTS PURGE' : '';
            await execute(`DROP ${type} "${name.replaceAll('"', '')}"${suffix}`).catch(() => undefined);
          }
        } finally {
          await connection.close().catch(() => undefined);
        }
      })();
      return dropped;
    },
  };
}

function requireUrl(): string {
  if (TEST_ORACLE_URL === undefined) throw new Error('TEST_ORACLE_URL is not set');
  return TEST_ORACLE_URL;
}

/** A decrypted connection record pointing at `server`, as the connectors receive it. */
export function resolvedOracleDatasource(server: OracleTestServer, overrides: Partial<ResolvedDatasource> = {}): ResolvedDatasource {
  const metadata = { serviceName: server.serviceName };
  return datasourceRecord(DatasourceType.Oracle, 'oracle_test', { ...server, name: server.serviceName }, { metadata, ...overrides });
}
