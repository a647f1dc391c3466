import { readFileSync } from 'node:fs';
import sql, { type ConnectionPool } from 'mssql';
import { describe, it } from 'vitest';
import { DatasourceType } from '../../src/engine/connectors/datasource-type.js';
import type { ResolvedDatasource } from '../../src/engine/connectors/shared/engine-connector.js';
import { datasourceRecord } from '../../src/engine/testing/datasource-records.js';
import { useDropped } from './describe-fixtures.js';
import { uniqueDatabaseName } from './unique-names.js';

/**
 * Throw-away databases on a SQL Server named by TEST_MSSQL_URL:
 *
 *   mssql://user:password@host:port/prefix[?ssl=disable|true|strict]
 *
 * e.g. `mssql://sa:Passw0rd!@127.0.0.1:1433/fetcher_test` (docker/compose.yml starts one). The
 * login needs CREATE DATABASE (and, for the connector suite, CREATE LOGIN and VIEW SERVER
 * STATE: `sa` has them). The path is the prefix of the temporary database names. `ssl` is the
 * connector's SSL mode for the test datasources (default `disable`); with `true`/`strict` the
 * server certificate must verify against the system roots or the PEM file in TEST_MSSQL_CA.
 *
 * Nothing here connects unless a suite runs, and suites only run when the variable is set.
 */
export const TEST_MSSQL_URL: string | undefined = process.env.TEST_MSSQL_URL || undefined;

export const SQLSERVER_SKIP_REASON =
  'set TEST_MSSQL_URL=mssql://user:pass@host:port/db to run against a server (docker/compose.yml starts one)';

export interface SqlServerTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Prefix of the temporary database names. */
  readonly prefix: string;
  readonly sslMode: string;
  readonly ca?: string;
}

export function parseSqlServerUrl(url: string, caFile = process.env.TEST_MSSQL_CA): SqlServerTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== 'mssql:' && parsed.protocol !== 'sqlserver:') throw new Error('TEST_MSSQL_URL must start with mssql://');
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 1433),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    prefix: decodeURIComponent(parsed.pathname.slice(1)) || 'fetcher_test',
    sslMode: parsed.searchParams.get('ssl') ?? 'disable',
    ...(caFile ? { ca: readFileSync(caFile, 'utf8') } : {}),
  };
}

/** Registers `body` as a suite when TEST_MSSQL_URL is set; otherwise a skipped suite that says why, and a line on stdout. */
export function describeWithSqlServer(title: string, body: (target: SqlServerTarget) => void): void {
  if (TEST_MSSQL_URL === undefined) {
    describe.skip(`${title} — SKIPPED: ${SQLSERVER_SKIP_REASON}`, () => {
      it.skip('needs a server', () => undefined);
    });
    process.stdout.write(`\n[sqlserver] ${title}: SKIPPED — ${SQLSERVER_SKIP_REASON}\n`);
    return;
  }
  const target = parseSqlServerUrl(TEST_MSSQL_URL);
  describe(title, () => {
    body(target);
  });
}

function poolFor(target: SqlServerTarget, database: string): ConnectionPool {
  const encrypt = target.sslMode === 'strict' ? 'strict' : target.sslMode === 'true';
  return new sql.ConnectionPool({
    server: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database,
    requestTimeout: 120_000,
    pool: { max: 4, min: 0 },
    // The admin side trusts the test server: only the connector under test verifies certificates.
    options: { encrypt, trustServerCertificate: true, appName: 'fetcher-tests' },
  });
}

/** Runs `fn` with a short-lived pool on the server's master database. */
export async function withSqlServerAdmin<T>(target: SqlServerTarget, fn: (pool: ConnectionPool) => Promise<T>): Promise<T> {
  const pool = poolFor(target, 'master');
  pool.on('error', () => undefined);
  await pool.connect();
  try {
    return await fn(pool);
  } finally {
    await pool.close();
  }
}

export interface TempSqlServerDatabase extends SqlServerTarget {
  readonly name: string;
  /**
   * Runs one T-SQL batch (several statements, no `GO`) and returns the rows of its first result
   * as objects. `params` are bound as `@name` with types inferred from the JS values.
   */
  query<R = Record<string, unknown>>(batch: string, params?: Record<string, unknown>): Promise<R[]>;
  /** Runs batches one after the other (CREATE SCHEMA, VIEW, TYPE… must be alone in theirs). */
  run(...batches: string[]): Promise<void>;
  /** Drops the database, closing every connection to it. Safe to call twice. */
  drop(): Promise<void>;
}

/** A temporary database on `target` for the enclosing describe (see useDropped). */
export function useTempSqlServerDatabase(target: SqlServerTarget, suffix: string): () => TempSqlServerDatabase {
  return useDropped(`the temporary database ${suffix}`, () => createTempSqlServerDatabase(target, suffix));
}

export async function createTempSqlServerDatabase(target: SqlServerTarget, suffix: string): Promise<TempSqlServerDatabase> {
  const name = uniqueDatabaseName(`${target.prefix}_${suffix}`, 40);
  await withSqlServerAdmin(target, (admin) => admin.request().query(`CREATE DATABASE [${name}]`));
  const pool = poolFor(target, name);
  pool.on('error', () => undefined);
  await pool.connect();
  let dropped: Promise<void> | undefined;

  const query = async <R>(batch: string, params: Record<string, unknown> = {}): Promise<R[]> => {
    const request = pool.request();
    for (const [key, value] of Object.entries(params)) request.input(key, value);
    const result = await request.query<R>(batch);
    return result.recordset ?? [];
  };

  return {
    ...target,
    name,
    query,
    async run(...batches: string[]) {
      for (const batch of batches) await query(batch);
    },
    drop() {
      dropped ??= (async () => {
        await pool.close().catch(() => undefined);
        await withSqlServerAdmin(target, (admin) =>
          admin
            .request()
            .query(
              `IF DB_ID(N'${name}') IS NOT NULL BEGIN ALTER DATABASE [${name}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [${name}]; END`,
            ),
        );
      })();
      return dropped;
    },
  };
}

/** A decrypted connection record pointing at `db`, as the connectors receive it. */
export function resolvedSqlServerDatasource(
  db: Pick<TempSqlServerDatabase, 'name' | 'host' | 'port' | 'user' | 'password' | 'sslMode' | 'ca'>,
  overrides: Partial<ResolvedDatasource> = {},
): ResolvedDatasource {
  const ssl = { mode: db.sslMode, ...(db.ca === undefined ? {} : { ca: db.ca }) };
  return datasourceRecord(DatasourceType.SqlServer, 'mssql_test', db, { ssl, ...overrides });
}
