import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPostgres, startEmbeddedFetcher, TEST_MASTER_KEY, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { decodeStoredResult } from '../helpers/result-decoder.js';

/**
 * Source sessions kept between jobs (docs/operations.md, "Source session reuse"), through HTTP:
 * each job reads a view that answers pg_backend_pid(), so the result itself says which server
 * session served it.
 */
describe('pooled source sessions through the API (embedded mode)', () => {
  let fetcher: EmbeddedFetcher;
  const source = useTempDatabase('e2e_session_pool');
  const ledger = { id: '', configName: `pg_ledger_${randomUUID().slice(0, 8)}` };
  const payments = { id: '', configName: `pg_payments_${randomUUID().slice(0, 8)}` };

  beforeAll(async () => {
    await source().query('CREATE VIEW serving_backend AS SELECT 1 AS id, pg_backend_pid() AS pid');
    fetcher = await startEmbeddedFetcher();
    ledger.id = (await registerPostgres(fetcher.http, source(), { configName: ledger.configName, product: 'ledger' })).id;
    payments.id = (await registerPostgres(fetcher.http, source(), { configName: payments.configName, product: 'payments' })).id;
  });

  afterAll(async () => {
    await fetcher?.close();
  });

  /** The backend pid that served a job of `product` on `configName` (its connection test and its read). */
  const servedBy = async (product: string, configName: string): Promise<number> => {
    const response = await fetcher.http
      .post('/v1/fetcher')
      .set('X-Product-Name', product)
      .send({
        dataRequest: { mappedFields: { [configName]: { serving_backend: ['pid'] } } },
        metadata: { source: product, run: randomUUID() },
      });
    expect(response.status).toBe(202);
    const job = await waitForJob(fetcher.http, response.body.jobId);
    expect(job.status).toBe('completed');
    const stored = readFileSync(join(fetcher.config.dataDir, 'results', job.resultPath as string));
    type Served = Record<string, { serving_backend: { pid: number }[] }>;
    const document = JSON.parse(decodeStoredResult(stored, TEST_MASTER_KEY).plaintext) as Served;
    return document[configName].serving_backend[0].pid;
  };

  const liveBackends = async (): Promise<number[]> => {
    const { rows } = await source().query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'fetcher' AND pid <> pg_backend_pid()`,
      [source().name],
    );
    return rows.map((row) => row.pid);
  };

  it('serves a product’s next jobs from the session its last job left, and never from another product’s', async () => {
    const first = await servedBy('ledger', ledger.configName);
    expect(await servedBy('ledger', ledger.configName)).toBe(first);
    expect(await servedBy('ledger', ledger.configName)).toBe(first);
    const other = await servedBy('payments', payments.configName);
    expect(other).not.toBe(first);
    expect(await servedBy('payments', payments.configName)).toBe(other);
    expect(await servedBy('ledger', ledger.configName)).toBe(first);
  });

  it('after a PATCH the connection’s jobs never get a session of its old version, and the old one is closed', async () => {
    const before = await servedBy('ledger', ledger.configName);
    const patched = await fetcher.http
      .patch(`/v1/management/connections/${ledger.id}`)
      .set('X-Product-Name', 'ledger')
      .send({ userName: source().user });
    expect(patched.status).toBe(200);
    await expect.poll(liveBackends).not.toContain(before);
    const after = await servedBy('ledger', ledger.configName);
    expect(after).not.toBe(before);
    expect(await servedBy('ledger', ledger.configName)).toBe(after);
  });

  it('a session the server closed between jobs costs a fresh connect, never a failed job', async () => {
    const before = await servedBy('payments', payments.configName);
    await source().query('SELECT pg_terminate_backend($1)', [before]);
    await expect.poll(liveBackends).not.toContain(before);
    const after = await servedBy('payments', payments.configName);
    expect(after).not.toBe(before);
  });

  it('after a DELETE the connection’s sessions are closed and its name serves no job', async () => {
    const before = await servedBy('payments', payments.configName);
    const deleted = await fetcher.http.delete(`/v1/management/connections/${payments.id}`).set('X-Product-Name', 'payments');
    expect(deleted.status).toBe(204);
    await expect.poll(liveBackends).not.toContain(before);
    const response = await fetcher.http
      .post('/v1/fetcher')
      .set('X-Product-Name', 'payments')
      .send({ dataRequest: { mappedFields: { [payments.configName]: { serving_backend: ['pid'] } } }, metadata: { source: 'payments' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'FET-1020' });
  });
});
