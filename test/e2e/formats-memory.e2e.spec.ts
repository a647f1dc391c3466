import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { freePort, startFetcherProcess, type FetcherProcess } from '../helpers/fetcher-process.js';
import { peakRss } from '../helpers/process-memory.js';
import { useTempDatabase } from '../helpers/pg-database.js';

const MiB = 1024 * 1024;
/** Rows of the mixed table: about 256 MiB as the JSON document (measured by the json job below). */
const ROWS = 900_000;

/** Memory is bounded by bytes in every format: a ~256 MiB table through a fresh worker process, once per format. */
describe('a ~256 MiB table to Parquet and to gzip CSV', () => {
  const source = useTempDatabase('formats_memory');
  const dirs: string[] = [];

  beforeAll(async () => {
    // Mixed types, as a reporting table holds them: 64-bit keys, uuids, text with quotes and
    // backslashes, decimals, integers, booleans, instants and a sparse column.
    await source().query(`
      CREATE TABLE ledger (
        id bigint PRIMARY KEY, ref uuid, label text, amount numeric(12,2), qty int, settled bool,
        booked timestamptz, memo text
      );
      INSERT INTO ledger
        SELECT g, md5(g::text)::uuid, 'entry ' || g || ' "quoted" back' || chr(92) || 'slash ' || repeat(md5((g * 7)::text), 2),
               (g % 1000000) / 100.0, g % 1000, g % 3 = 0, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second',
               CASE WHEN g % 4 = 0 THEN NULL ELSE 'memo ' || md5((g * 13)::text) END
        FROM generate_series(1, ${ROWS}) g;
      ANALYZE ledger;`);
  }, 300_000);

  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh embedded Fetcher (role all: its worker is this process), one job, and the process's peak RSS. */
  async function extractIn(output: Record<string, string> | undefined): Promise<{ job: Record<string, any>; peak: number }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-formats-memory-'));
    dirs.push(dataDir);
    const port = await freePort();
    const fetcher: FetcherProcess = await startFetcherProcess(
      { DATA_DIR: dataDir, APP_ENC_KEY: TEST_MASTER_KEY, PORT: String(port) },
      port,
    );
    try {
      const api = async (path: string, body?: unknown) => {
        const response = await fetch(`${fetcher.url}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Product-Name': 'reporter' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Record<string, any> };
      };
      const connection = await api('/v1/management/connections', pgConnectionBody(source(), { configName: 'ledger_pg' }));
      expect(connection.status).toBe(201);
      const created = await api('/v1/fetcher', {
        dataRequest: { mappedFields: { ledger_pg: { ledger: ['*'] } } },
        ...(output ? { output } : {}),
        metadata: { source: 'reporter' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const deadline = Date.now() + 240_000;
      for (;;) {
        const job = await api(`/v1/fetcher/${created.body.jobId}`);
        if (job.body.status === 'completed' || job.body.status === 'failed')
          return { job: job.body, peak: peakRss(fetcher.child.pid as number) };
        if (Date.now() > deadline) throw new Error(`job ${created.body.jobId} still ${job.body.status}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      await fetcher.stop(5_000);
    }
  }

  it('the table is ~256 MiB as the JSON document', async () => {
    const { job } = await extractIn(undefined);
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    expect(job.result.sizeBytes).toBeGreaterThan(240 * MiB);
    expect(job.result.sizeBytes).toBeLessThan(256 * MiB);
  }, 300_000);

  it.each([
    ['parquet', { format: 'parquet' }],
    ['gzip CSV', { format: 'csv', compression: 'gzip' }],
  ])(
    'to %s, with the worker peak RSS under 200 MiB',
    async (_name, output) => {
      const { job, peak } = await extractIn(output);
      expect(job.status, JSON.stringify(job.error)).toBe('completed');
      expect(job.result.rowCount).toBe(ROWS);
      expect(job.result.parts).toHaveLength(1);
      expect(peak).toBeLessThan(200 * MiB);
    },
    300_000,
  );
});
