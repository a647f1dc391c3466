import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { freePort, startFetcherProcess, type FetcherProcess } from '../helpers/fetcher-process.js';
import { peakRss } from '../helpers/process-memory.js';
import { useTempDatabase } from '../helpers/pg-database.js';

const MiB = 1024 * 1024;

function filesUnder(dir: string): string[] {
  let found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found = found.concat(filesUnder(path));
    else if (statSync(path).size > 0) found.push(path);
  }
  return found;
}

/** Memory is bounded by bytes, not rows: huge rows and a huge single value, through a real worker process. */
describe('rows of megabytes through a real job', () => {
  const source = useTempDatabase('big_rows');
  let fetcher: FetcherProcess;
  let dataDir: string;

  const api = async (path: string, body?: unknown) => {
    const response = await fetch(`${fetcher.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Product-Name': 'reporter' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  const runJob = async (table: string): Promise<Record<string, any>> => {
    const created = await api('/v1/fetcher', {
      dataRequest: { mappedFields: { big_pg: { [table]: ['id', 'body'] } } },
      metadata: { source: 'reporter' },
    });
    expect(created.status).toBe(202);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const job = await api(`/v1/fetcher/${created.body.jobId}`);
      if (job.body.status === 'completed' || job.body.status === 'failed') return job.body;
      if (Date.now() > deadline) throw new Error(`job ${created.body.jobId} still ${job.body.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  beforeAll(async () => {
    // 120 rows of 2 MiB each (a ~240 MiB result), and one row holding a single 300 MB value.
    await source().query(`
      CREATE TABLE wide_rows (id int PRIMARY KEY, body text);
      INSERT INTO wide_rows SELECT g, repeat(md5(g::text), 65536) FROM generate_series(1, 120) g;
      CREATE TABLE one_huge_value (id int PRIMARY KEY, body text);
      INSERT INTO one_huge_value VALUES (1, repeat('x', 300000000));
    `);
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-big-rows-'));
    const port = await freePort();
    fetcher = await startFetcherProcess({ DATA_DIR: dataDir, APP_ENC_KEY: TEST_MASTER_KEY, PORT: String(port) }, port);
    const created = await api('/v1/management/connections', pgConnectionBody(source(), { configName: 'big_pg' }));
    expect(created.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await fetcher?.stop(5_000);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('120 rows × 2 MiB complete with the worker peak RSS under 300 MiB', async () => {
    const job = await runJob('wide_rows');
    expect(job.status).toBe('completed');
    expect(job.result.rowCount).toBe(120);
    expect(job.result.sizeBytes).toBeGreaterThan(120 * 2 * MiB);
    const peak = peakRss(fetcher.child.pid as number);
    expect(peak).toBeLessThan(300 * MiB);
  }, 180_000);

  it('a single 300 MB value fails the job with the size error and stores nothing', async () => {
    const job = await runJob('one_huge_value');
    expect(job.status).toBe('failed');
    expect(job.error.code).toBe('FET-1101');
    const results = join(dataDir, 'results');
    // Neither the result, nor an attempt's object, nor a half-written upload.
    expect(filesUnder(results).filter((path) => path.includes(job.id) || path.includes('.uploads'))).toEqual([]);
  }, 180_000);
});
