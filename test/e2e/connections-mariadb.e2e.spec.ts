import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPostgres, startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { createTempMariaDatabase, withMariaAdmin, type TempMariaDatabase } from '../helpers/mariadb-database.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

/** The connection endpoints where the engine matters, against the real MariaDB (MySQL engine). */
describe('connections API on MariaDB', () => {
  let fetcher: EmbeddedFetcher;
  let maria: TempMariaDatabase;
  let pg: TempDatabase;
  const user = `fetcher_${randomBytes(3).toString('hex')}`;
  const password = `pw-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    [maria, pg] = await Promise.all([createTempMariaDatabase('e2e_conn_maria'), createTempDatabase('e2e_conn_pg')]);
    await maria.query(`
      CREATE TABLE orders (id BIGINT UNSIGNED PRIMARY KEY, customer VARCHAR(64), total DECIMAL(12,2), placed_at DATETIME(6));
      CREATE TABLE \`Line Items\` (\`order\` BIGINT, sku VARCHAR(32), qty INT, PRIMARY KEY (\`order\`, sku));
      CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 100;
    `);
    await pg.query('CREATE TABLE accounts (id int PRIMARY KEY, email text)');
    await withMariaAdmin((admin) =>
      admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'; GRANT SELECT ON \`${maria.name}\`.* TO '${user}'@'%'`),
    );
    fetcher = await startEmbeddedFetcher();
  });

  afterAll(async () => {
    await fetcher?.close();
    await withMariaAdmin((admin) => admin.query(`DROP USER IF EXISTS '${user}'@'%'`)).catch(() => undefined);
    await Promise.all([maria?.drop(), pg?.drop()]);
  });

  const registerMaria = async (credentials: { userName: string; password: string }) => {
    const response = await fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', 'reporter')
      .send({
        configName: `my_${randomUUID().slice(0, 8)}`,
        type: 'MYSQL',
        host: maria.host,
        port: maria.port,
        databaseName: maria.name,
        ...credentials,
      });
    expect(response.status).toBe(201);
    return response.body as { id: string; configName: string };
  };

  it('/test answers 200 with the right password and 502 auth_failed with a wrong one', async () => {
    const good = await registerMaria({ userName: user, password });
    const ok = await fetcher.http.post(`/v1/management/connections/${good.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body.latencyMs).toBeGreaterThan(0);

    const bad = await registerMaria({ userName: user, password: 'wrong-password' });
    const refused = await fetcher.http.post(`/v1/management/connections/${bad.id}/test`);
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ code: 'FET-1041', reason: 'auth_failed' });
    expect(JSON.stringify(refused.body)).not.toContain('wrong-password');
    expect(JSON.stringify(refused.body)).not.toContain(user);
  });

  it('/schema returns exactly the tables and columns of the database', async () => {
    const { id, configName } = await registerMaria({ userName: user, password });
    const response = await fetcher.http.get(`/v1/management/connections/${id}/schema`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id,
      configName,
      databaseName: maria.name,
      type: 'MYSQL',
      tables: [
        { name: 'Line Items', fields: ['order', 'sku', 'qty'] },
        { name: 'big_orders', fields: ['id', 'total'] },
        { name: 'orders', fields: ['id', 'customer', 'total', 'placed_at'] },
      ],
    });
  });

  it('validate-schema checks a PostgreSQL and a MariaDB datasource together', async () => {
    const mysqlConnection = await registerMaria({ userName: user, password });
    const pgConnection = await registerPostgres(fetcher.http, pg, { configName: `pg_${randomUUID().slice(0, 8)}`, product: 'reporter' });
    const ok = await fetcher.http.post('/v1/management/connections/validate-schema').send({
      mappedFields: {
        [mysqlConnection.configName]: { orders: ['id', 'total'], 'Line Items': ['*'] },
        [pgConnection.configName]: { accounts: ['email'] },
      },
    });
    expect(ok.status).toBe(200);
    const bad = await fetcher.http.post('/v1/management/connections/validate-schema').send({
      mappedFields: {
        [mysqlConnection.configName]: { orders: ['id', 'discount'], [`${maria.name}.orders`]: ['id'] },
        [pgConnection.configName]: { accounts: ['email'] },
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details).toEqual([
      { type: 'table_not_found', datasource: mysqlConnection.configName, table: `${maria.name}.orders` },
      { type: 'field_not_found', datasource: mysqlConnection.configName, table: 'orders', field: 'discount' },
    ]);
  });
});
