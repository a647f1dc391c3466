import pg from 'pg';
import { DatasourceType } from '../../src/engine/connectors/datasource-type.js';
import type { ResolvedDatasource } from '../../src/engine/connectors/shared/engine-connector.js';
import { datasourceRecord } from '../../src/engine/testing/datasource-records.js';
import { useDropped } from './describe-fixtures.js';
import { uniqueDatabaseName } from './unique-names.js';

/**
 * Throw-away databases on the local PostgreSQL (trust auth). Server coordinates come from
 * TEST_PG_HOST / TEST_PG_PORT / TEST_PG_USER / TEST_PG_PASSWORD, defaulting to
 * 127.0.0.1:5432 as `postgres` with no password.
 */
export interface TempDatabase {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** `postgres://user[:password]@host:port/name`, e.g. for DATABASE_URL. */
  readonly url: string;
  /** Runs SQL on this database (several `;`-separated statements when there are no params). */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Terminates every connection to the database and drops it. Safe to call twice. */
  drop(): Promise<void>;
}

export const TEST_PG = {
  host: process.env.TEST_PG_HOST ?? '127.0.0.1',
  port: Number(process.env.TEST_PG_PORT ?? 5432),
  user: process.env.TEST_PG_USER ?? 'postgres',
  password: process.env.TEST_PG_PASSWORD ?? '',
};

/** Runs `fn` with a short-lived connection to the server's maintenance database. */
export async function withAdminClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...TEST_PG, database: 'postgres' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A temporary database for the enclosing describe: created before its first beforeAll that comes
 * after this call, dropped after its afterAll hooks. The function gives it to the hooks and tests.
 */
export function useTempDatabase(prefix: string): () => TempDatabase {
  return useDropped(`the temporary database ${prefix}`, () => createTempDatabase(prefix));
}

/** `encoding: 'SQL_ASCII'`: a database that stores bytes as given, UTF-8 or not. */
export async function createTempDatabase(prefix = 'fetcher_test', options: { encoding?: 'SQL_ASCII' } = {}): Promise<TempDatabase> {
  const name = uniqueDatabaseName(prefix);
  const encoding = options.encoding === undefined ? '' : ` ENCODING '${options.encoding}' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'`;
  await withAdminClient((admin) => admin.query(`CREATE DATABASE "${name}"${encoding}`));
  const pool = new pg.Pool({ ...TEST_PG, database: name, max: 4 });
  // An idle client killed by drop() must not crash the test process.
  pool.on('error', () => undefined);
  const credentials = TEST_PG.password === '' ? TEST_PG.user : `${TEST_PG.user}:${encodeURIComponent(TEST_PG.password)}`;
  let dropped: Promise<void> | undefined;

  return {
    name,
    ...TEST_PG,
    url: `postgres://${credentials}@${TEST_PG.host}:${TEST_PG.port}/${name}`,
    query: <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => pool.query<R>(sql, params),
    drop() {
      dropped ??= (async () => {
        await pool.end();
        await withAdminClient(async (admin) => {
          await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
            name,
          ]);
          await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        });
      })();
      return dropped;
    },
  };
}

/** A decrypted connection record pointing at `db`, as the connectors receive it. */
export function resolvedDatasource(
  db: Pick<TempDatabase, 'name' | 'host' | 'port' | 'user' | 'password'>,
  overrides: Partial<ResolvedDatasource> = {},
): ResolvedDatasource {
  return datasourceRecord(DatasourceType.PostgreSQL, 'pg_test', db, overrides);
}

/**
 * Both ways the PostgreSQL connector reads rows: COPY (the default) and the cursor it falls back
 * to. Suites about values, filters and limits run once per path, so the two cannot drift apart.
 */
export const PG_READ_PATHS = ['copy', 'cursor'] as const;

/** The DATASOURCE_<NAME>_* variables that declare `db` as an internal PostgreSQL datasource named `name` (lower-cased). */
export function internalPostgresEnv(name: string, db: TempDatabase): Record<string, string> {
  const prefix = `DATASOURCE_${name.toUpperCase()}_`;
  return {
    [`${prefix}CONFIG_NAME`]: name.toLowerCase(),
    [`${prefix}TYPE`]: 'POSTGRESQL',
    [`${prefix}HOST`]: db.host,
    [`${prefix}PORT`]: String(db.port),
    [`${prefix}DATABASE`]: db.name,
    [`${prefix}USER`]: db.user,
  };
}
