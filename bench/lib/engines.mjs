// The two engines the bench runs against: how to seed them, how their own client reads a table
// (the reference Fetcher is compared with), and the connection Fetcher is given.
import { spawnSync } from 'node:child_process';
import mysql from 'mysql2/promise';
import pg from 'pg';

const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const MARIA = { host: '127.0.0.1', port: 3306, user: 'root' };

/** Runs `command` in bash, output to /dev/null; returns the wall time in seconds. */
function timedShell(command, what) {
  const started = process.hrtime.bigint();
  const result = spawnSync('bash', ['-c', `${command} > /dev/null`], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 16 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`${what} failed (${result.signal ?? `exit ${result.status}`}): ${result.stderr}`);
  return seconds;
}

async function withPg(database, work) {
  const client = new pg.Client({ ...PG, database });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function withMaria(work, options = {}) {
  const connection = await mysql.createConnection({ ...MARIA, ...options });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

export const postgres = {
  name: 'postgres',
  clientLabel: 'psql COPY',
  large: true,
  async version() {
    return withPg('postgres', async (c) => (await c.query('SHOW server_version')).rows[0].server_version);
  },
  async createDatabase(database) {
    await withPg('postgres', (c) => c.query(`CREATE DATABASE ${database}`));
  },
  async dropDatabase(database) {
    await withPg('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  },
  async seedRows(database, rows, table = 'bench_rows') {
    await withPg(database, async (c) => {
      await c.query(`CREATE TABLE ${table} (
        id bigint PRIMARY KEY, uid uuid NOT NULL, name text NOT NULL, amount numeric(12,2) NOT NULL,
        qty integer NOT NULL, active boolean NOT NULL, created_at timestamptz NOT NULL, note text)`);
      await c.query(
        `INSERT INTO ${table}
        SELECT g, md5(g::text)::uuid, 'name-' || g, (g % 100000) / 100.0, g % 1000, g % 2 = 0,
               timestamptz '2026-01-01 00:00:00+00' + g * interval '1.000123 second',
               CASE WHEN g % 10 = 0 THEN NULL ELSE 'note "' || g || '" with \\ backslash' END
        FROM generate_series(1, $1) g`,
        [rows],
      );
      await c.query(`ANALYZE ${table}`);
    });
  },
  // 1,000 characters a row: two md5s per 93-character segment (so rows differ), double quotes, a
  // backslash, a tab and 'é€', so the escaping and multi-byte paths of the renderer are exercised.
  async seedLarge(database, rows) {
    await withPg(database, async (c) => {
      await c.query('CREATE TABLE bench_large (id bigint PRIMARY KEY, payload text NOT NULL)');
      await c.query(
        `INSERT INTO bench_large
        SELECT g, left(repeat(md5(g::text) || ' "quoted" ' || md5((g * 31)::text) || ' back' || chr(92) || 'slash' || chr(9) || 'tab é€ ', 12), 1000)
        FROM generate_series(1, $1) g`,
        [rows],
      );
      await c.query('ANALYZE bench_large');
    });
  },
  client(database, table, projection) {
    return timedShell(
      `psql -h ${PG.host} -p ${PG.port} -U ${PG.user} -d ${database} -X -q -c "COPY (SELECT ${projection} FROM ${table}) TO STDOUT"`,
      'psql COPY',
    );
  },
  connection(database) {
    return { type: 'POSTGRESQL', host: PG.host, port: PG.port, databaseName: database, userName: PG.user, password: 'unused' };
  },
  /** The same datasource as a URL, for `fetcher extract`. */
  url(database) {
    return `postgres://${PG.user}:unused@${PG.host}:${PG.port}/${database}`;
  },
};

export const mariadb = {
  name: 'mariadb',
  clientLabel: 'mariadb -B',
  large: true,
  async version() {
    return withMaria(async (c) => (await c.query('SELECT VERSION() AS v'))[0][0].v);
  },
  async createDatabase(database) {
    await withMaria((c) => c.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`));
  },
  async dropDatabase(database) {
    await withMaria((c) => c.query(`DROP DATABASE IF EXISTS ${database}`));
  },
  async seedRows(database, rows, table = 'bench_rows') {
    await withMaria(
      (c) =>
        c.query(`USE ${database};
          CREATE TABLE ${table} (
            id BIGINT PRIMARY KEY, uid CHAR(36) NOT NULL, name VARCHAR(32) NOT NULL, amount DECIMAL(12,2) NOT NULL,
            qty INT NOT NULL, active TINYINT(1) NOT NULL, created_at DATETIME(6) NOT NULL, note VARCHAR(64) NULL);
          INSERT INTO ${table}
            SELECT seq, UUID(), CONCAT('name-', seq), (seq % 100000) / 100, seq % 1000, seq % 2 = 0,
                   TIMESTAMP '2026-01-01 00:00:00' + INTERVAL seq * 1000123 MICROSECOND,
                   IF(seq % 10 = 0, NULL, CONCAT('note "', seq, '" with \\\\ backslash'))
            FROM seq_1_to_${rows};
          ANALYZE TABLE ${table};`),
      { multipleStatements: true },
    );
  },
  // The same payload as PostgreSQL's ('\\' is one backslash and '\t' a tab in a MariaDB string).
  async seedLarge(database, rows) {
    await withMaria(
      (c) =>
        c.query(`USE ${database};
          CREATE TABLE bench_large (id BIGINT PRIMARY KEY, payload TEXT NOT NULL);
          INSERT INTO bench_large
            SELECT seq, LEFT(REPEAT(CONCAT(MD5(seq), ' "quoted" ', MD5(seq * 31), ' back\\\\slash\\ttab é€ '), 12), 1000)
            FROM seq_1_to_${rows};
          ANALYZE TABLE bench_large;`),
      { multipleStatements: true, charset: 'utf8mb4' },
    );
  },
  client(database, table, projection) {
    return timedShell(
      `mariadb -h ${MARIA.host} -P ${MARIA.port} -u ${MARIA.user} --quick -N -B -e "SELECT ${projection} FROM ${database}.${table}"`,
      'mariadb client',
    );
  },
  connection(database) {
    return { type: 'MYSQL', host: MARIA.host, port: MARIA.port, databaseName: database, userName: MARIA.user, password: '' };
  },
  url(database) {
    return `mysql://${MARIA.user}@${MARIA.host}:${MARIA.port}/${database}`;
  },
};

export const ENGINES = { postgres, mariadb };
