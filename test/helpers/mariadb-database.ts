import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { DatasourceType } from '../../src/engine/connectors/datasource-type.js';
import type { ResolvedDatasource } from '../../src/engine/connectors/shared/engine-connector.js';
import { datasourceRecord } from '../../src/engine/testing/datasource-records.js';
import { generatedPassword } from './test-secrets.js';
import { useDropped } from './describe-fixtures.js';
import { uniqueDatabaseName } from './unique-names.js';

/**
 * Throw-away databases on the local MariaDB (MySQL engine). Server coordinates come from
 * TEST_MARIADB_HOST / TEST_MARIADB_PORT / TEST_MARIADB_USER / TEST_MARIADB_PASSWORD, defaulting
 * to 127.0.0.1:3306 as `root` with no password.
 */
export interface TempMariaDatabase {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /**
   * Runs SQL on this database: the rows (as objects) of a SELECT, `[]` for other statements.
   * Several `;`-separated statements are allowed when there are no params.
   */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Kills every connection to the database and drops it. Safe to call twice. */
  drop(): Promise<void>;
}

export const TEST_MARIADB = {
  host: process.env.TEST_MARIADB_HOST ?? '127.0.0.1',
  port: Number(process.env.TEST_MARIADB_PORT ?? 3306),
  user: process.env.TEST_MARIADB_USER ?? 'root',
  password: process.env.TEST_MARIADB_PASSWORD ?? '',
};

/** Runs `fn` with a short-lived server-level connection (no default database). */
export async function withMariaAdmin<T>(fn: (connection: mysql.Connection) => Promise<T>): Promise<T> {
  const connection = await mysql.createConnection({ ...TEST_MARIADB, multipleStatements: true });
  try {
    return await fn(connection);
  } finally {
    await connection.end();
  }
}

/** A temporary MariaDB database for the enclosing describe (see useDropped). */
export function useTempMariaDatabase(prefix: string): () => TempMariaDatabase {
  return useDropped(`the temporary database ${prefix}`, () => createTempMariaDatabase(prefix));
}

export async function createTempMariaDatabase(prefix = 'fetcher_test'): Promise<TempMariaDatabase> {
  const name = uniqueDatabaseName(prefix);
  await withMariaAdmin((admin) => admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`));
  const pool = mysql.createPool({
    ...TEST_MARIADB,
    database: name,
    connectionLimit: 4,
    multipleStatements: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    charset: 'UTF8MB4',
  });
  // An idle connection killed by drop() must not crash the test process.
  pool.on('connection', (connection) => connection.on('error', () => undefined));
  let dropped: Promise<void> | undefined;

  return {
    name,
    ...TEST_MARIADB,
    async query<R>(sql: string, params?: unknown[]): Promise<R[]> {
      const [result] = await pool.query(sql, params);
      return Array.isArray(result) && !Array.isArray(result[0]) ? (result as R[]) : [];
    },
    drop() {
      dropped ??= (async () => {
        await pool.end();
        await withMariaAdmin(async (admin) => {
          const [rows] = await admin.query('SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [name]);
          for (const { ID } of rows as { ID: number | string }[]) {
            await admin.query(`KILL ${Number(ID)}`).catch(() => undefined);
          }
          await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
        });
      })();
      return dropped;
    },
  };
}

/** A login on the local MariaDB, created for one run: its name never collides with another run's. */
export interface TempMariaUser {
  readonly name: string;
  readonly password: string;
  /** Drops the login (`'name'@'%'`). Safe to call twice. */
  drop(): Promise<void>;
}

/**
 * Creates `'<prefix>_<random>'@'%'`, optionally with SELECT on one database. Logins are
 * server-wide, so a fixed name would be shared (and dropped) by runs going on at the same time.
 * The prefix is cut so the name stays within MySQL's 32-character limit.
 */
export async function createTempMariaUser(prefix: string, options: { grantSelectOn?: string } = {}): Promise<TempMariaUser> {
  const clean =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, '_')
      .slice(0, 20) || 'tmp';
  const name = `${clean}_${randomBytes(5).toString('hex')}`;
  const password = generatedPassword();
  const drop = () => withMariaAdmin((admin) => admin.query(`DROP USER IF EXISTS '${name}'@'%'`)).then(() => undefined);
  try {
    await withMariaAdmin(async (admin) => {
      await admin.query(`CREATE USER '${name}'@'%' IDENTIFIED BY '${password}'`);
      if (options.grantSelectOn !== undefined) await admin.query(`GRANT SELECT ON \`${options.grantSelectOn}\`.* TO '${name}'@'%'`);
    });
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
  return { name, password, drop };
}

/** A decrypted connection record pointing at `db`, as the connectors receive it. */
export function resolvedMySqlDatasource(
  db: Pick<TempMariaDatabase, 'name' | 'host' | 'port' | 'user' | 'password'>,
  overrides: Partial<ResolvedDatasource> = {},
): ResolvedDatasource {
  return datasourceRecord(DatasourceType.MySQL, 'mysql_test', db, overrides);
}
