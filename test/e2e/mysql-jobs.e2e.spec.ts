import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  registerMariaDb,
  registerPostgres,
  startEmbeddedFetcher,
  TEST_MASTER_KEY,
  waitForJob,
  type EmbeddedFetcher,
} from '../helpers/fetcher-app.js';
import { createTempMariaDatabase, type TempMariaDatabase } from '../helpers/mariadb-database.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { decodeStoredResult } from '../helpers/result-decoder.js';

/** Jobs through HTTP on the MySQL engine (issue 4 acceptance), against the real MariaDB. */
describe('extraction jobs on MariaDB (MySQL engine)', () => {
  let fetcher: EmbeddedFetcher;
  let maria: TempMariaDatabase;
  let pg: TempDatabase;

  beforeAll(async () => {
    [maria, pg] = await Promise.all([createTempMariaDatabase('e2e_jobs_maria'), createTempDatabase('e2e_jobs_pg')]);
    await maria.query(`
      CREATE TABLE customers (id BIGINT UNSIGNED PRIMARY KEY, name VARCHAR(64) NOT NULL, vip TINYINT(1) NOT NULL, since DATE) CHARACTER SET utf8mb4;
      INSERT INTO customers VALUES (18446744073709551615, 'Max Unsigned', 1, '2020-02-29'), (2, 'Zoë "Q" \\\\ Doe', 0, NULL), (1, 'Ana', 1, '2019-01-01');
      CREATE TABLE orders (id INT PRIMARY KEY, customer_id BIGINT UNSIGNED, total DECIMAL(38,10), placed DATETIME(6), paid TIMESTAMP(3) NULL, doc JSON, raw VARBINARY(8), flags BIT(8));
      INSERT INTO orders VALUES
        (11, 1, '1234567890123456789012345678.0123456789', '2026-01-02 03:04:05.123456', '2026-01-02 03:04:06.250', '{"n": 12345678901234567890, "tags": ["a", "b"]}', x'00ff', b'10000001'),
        (10, 2, '0.0000000001', '2026-01-01 00:00:00.000001', NULL, NULL, NULL, b'0');
    `);
    await pg.query(`CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL);
      INSERT INTO accounts VALUES (9007199254740993, 'big@example.com'), (1, 'one@example.com');
      CREATE TABLE big (id int PRIMARY KEY, payload text NOT NULL);
      INSERT INTO big SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, 300000) g;`);
    fetcher = await startEmbeddedFetcher({
      // An internal datasource is not tested at job creation: the worker is the first to find it down.
      DATASOURCE_DOWN_CONFIG_NAME: 'maria_down',
      DATASOURCE_DOWN_TYPE: 'MYSQL',
      DATASOURCE_DOWN_HOST: '127.0.0.1',
      DATASOURCE_DOWN_PORT: '1',
      DATASOURCE_DOWN_DATABASE: maria.name,
      DATASOURCE_DOWN_USER: 'root',
    });
    await registerMariaDb(fetcher.http, maria, { configName: 'maria_main', product: 'reporter' });
    await registerPostgres(fetcher.http, pg, { configName: 'pg_main', product: 'reporter' });
  });

  afterAll(async () => {
    await fetcher?.close();
    await Promise.all([maria?.drop(), pg?.drop()]);
  });

  const run = async (mappedFields: object, correlationId: string) => {
    const response = await fetcher.http
      .post('/v1/fetcher')
      .send({ dataRequest: { mappedFields }, metadata: { source: 'reporter', correlationId } });
    expect(response.status).toBe(202);
    return waitForJob(fetcher.http, response.body.jobId);
  };
  const plaintextOf = (resultPath: string) =>
    decodeStoredResult(readFileSync(join(fetcher.config.dataDir, 'results', resultPath)), TEST_MASTER_KEY).plaintext;

  it('extracts two tables, one by wildcard and one by projection, with every value exact (docs/value-mapping.md)', async () => {
    const job = await run({ maria_main: { orders: ['*'], customers: ['name', 'id', 'vip', 'since'] } }, 'maria-two-tables');
    expect(job.status).toBe('completed');
    expect(plaintextOf(job.resultPath as string)).toBe(
      '{"maria_main":{' +
        '"customers":[' +
        '{"name":"Ana","id":1,"vip":true,"since":"2019-01-01"},' +
        `{"name":${JSON.stringify('Zoë "Q" \\ Doe')},"id":2,"vip":false,"since":null},` +
        '{"name":"Max Unsigned","id":18446744073709551615,"vip":true,"since":"2020-02-29"}],' +
        '"orders":[' +
        '{"id":10,"customer_id":2,"total":"0.0000000001","placed":"2026-01-01T00:00:00.000001","paid":null,"doc":null,"raw":null,"flags":0},' +
        '{"id":11,"customer_id":1,"total":"1234567890123456789012345678.0123456789","placed":"2026-01-02T03:04:05.123456",' +
        '"paid":"2026-01-02T03:04:06.250Z","doc":{"n":12345678901234567890,"tags":["a","b"]},"raw":"AP8=","flags":129}]}}',
    );
    expect(job.result?.rowCounts).toEqual({ maria_main: { customers: 3, orders: 2 } });
  });

  it('completes a job reading a PostgreSQL and a MariaDB datasource together', async () => {
    const job = await run({ pg_main: { accounts: ['*'] }, maria_main: { customers: ['id'] } }, 'pg-and-maria');
    expect(job.status).toBe('completed');
    expect(plaintextOf(job.resultPath as string)).toBe(
      '{"maria_main":{"customers":[{"id":1},{"id":2},{"id":18446744073709551615}]},' +
        '"pg_main":{"accounts":[{"id":1,"email":"one@example.com"},{"id":9007199254740993,"email":"big@example.com"}]}}',
    );
  });

  it('fails fast when the MariaDB datasource is down: the error names it and nothing is stored', async () => {
    const started = Date.now();
    const job = await run({ pg_main: { big: ['*'] }, maria_down: { customers: ['id'] } }, 'maria-down');
    expect(job.status).toBe('failed');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(job.error?.code).toBe('FET-1040');
    expect(job.error?.message).toContain('maria_down');
    expect(job.error?.details).toEqual([
      expect.objectContaining({ type: 'datasource_unavailable', datasource: 'maria_down', reason: 'unreachable' }),
    ]);
    expect(existsSync(join(fetcher.config.dataDir, 'results', 'external-data', `${job.id}.json`))).toBe(false);
  });

  it('fails the job on unknown MariaDB tables and fields, listing them', async () => {
    const job = await run({ maria_main: { customers: ['id', 'nickname'], [`${maria.name}.orders`]: ['id'] } }, 'maria-unknown');
    expect(job.status).toBe('failed');
    expect(job.error?.details).toEqual([
      { type: 'field_not_found', datasource: 'maria_main', table: 'customers', field: 'nickname' },
      { type: 'table_not_found', datasource: 'maria_main', table: `${maria.name}.orders` },
    ]);
  });
});
