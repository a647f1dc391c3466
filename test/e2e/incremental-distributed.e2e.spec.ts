import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../helpers/cluster.js';
import { useTempDatabase } from '../helpers/pg-database.js';

const STREAM = `ledger-${randomUUID().slice(0, 8)}`;

/**
 * A stream's marks in a distributed deployment (a Manager and a Worker process from dist/, on
 * PostgreSQL, Redis and S3): committed by the worker, visible through the manager, and still there
 * after both processes are restarted, so the next job reads only what is new.
 */
describe('incremental stream across a restart of the Manager and the Worker', () => {
  const cluster = new Cluster();
  const source = useTempDatabase('e2e_incremental_cluster');

  beforeAll(async () => {
    await source().query(`CREATE TABLE ledger (id int PRIMARY KEY, seq bigint NOT NULL, amount numeric(12,2) NOT NULL);
      INSERT INTO ledger SELECT g, g, g * 1.5 FROM generate_series(1, 500) g; CREATE INDEX ledger_seq ON ledger (seq);`);
    await cluster.start(1);
    await cluster.registerPostgres('ledger_db', source());
  }, 120_000);

  afterAll(async () => {
    await cluster.stop();
  });

  const submit = async (limits?: object) => {
    const response = await cluster.api('/v1/fetcher', {
      method: 'POST',
      body: JSON.stringify({
        dataRequest: {
          mappedFields: { ledger_db: { ledger: ['id', 'amount'] } },
          incremental: { stream: STREAM, cursors: { ledger_db: { ledger: 'seq' } } },
          ...(limits ? { limits } : {}),
        },
        metadata: { source: 'reporter' },
      }),
    });
    expect(response.status, await response.clone().text()).toBe(202);
    return cluster.waitForTerminal(((await response.json()) as { jobId: string }).jobId);
  };
  const runJob = async () => {
    const job = await submit();
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    const ids = JSON.parse((await cluster.readResult(job.resultPath as string)).plaintext).ledger_db.ledger.map(
      (row: { id: number }) => row.id,
    );
    return { job, ids: ids as number[] };
  };

  it('commits the marks on the worker, shows them after both restart, and the next job reads only the new rows', async () => {
    const first = await runJob();
    expect(first.ids).toHaveLength(500);
    expect(first.job.incremental).toEqual({
      stream: STREAM,
      tables: { ledger_db: { ledger: { column: 'seq', type: 'integer', from: null, fromInclusive: false, to: '500', rows: 500 } } },
    });

    await cluster.restart();
    const stream = await cluster.api(`/v1/fetcher/streams/${STREAM}?source=reporter`);
    expect(stream.status).toBe(200);
    expect(await stream.json()).toMatchObject({
      product: 'reporter',
      name: STREAM,
      tables: { ledger_db: { ledger: { column: 'seq', type: 'integer', value: '500' } } },
      lastJobId: first.job.id,
    });

    await source().query('INSERT INTO ledger SELECT g, g, 0 FROM generate_series(501, 520) g');
    // Fails part-way (its result outgrows its limit): it stores nothing and moves no mark.
    const failed = await submit({ maxResultBytes: 64 });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'FET-1101' } });
    const after = (await (await cluster.api(`/v1/fetcher/streams/${STREAM}?source=reporter`)).json()) as Record<string, unknown>;
    expect(after).toMatchObject({ tables: { ledger_db: { ledger: { value: '500' } } }, lastJobId: first.job.id });
    const second = await runJob();
    expect(second.ids).toEqual(Array.from({ length: 20 }, (_, i) => 501 + i));
    expect(second.job.incremental.tables.ledger_db.ledger).toMatchObject({ from: '500', to: '520', rows: 20 });
  }, 180_000);
});
