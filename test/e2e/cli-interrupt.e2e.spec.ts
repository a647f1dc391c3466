import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/event-consumer.js';
import { runFetcherCli } from '../helpers/fetcher-cli.js';
import { useTempDatabase } from '../helpers/pg-database.js';

describe('Ctrl-C during a large fetcher extract', () => {
  const pg = useTempDatabase('cli_interrupt');
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-cli-interrupt-'));
    // Tens of millions of rows produced as they are read: far more than Ctrl-C lets it read.
    await pg().query(`CREATE VIEW endless AS SELECT g AS id, md5(g::text) AS digest FROM generate_series(1, 50000000) g`);
    writeFileSync(join(dir, 'request.json'), JSON.stringify({ mappedFields: { pg: { endless: ['*'] } } }));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  const sessionsOnSource = async () =>
    Number(
      (
        await pg().query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
          pg().name,
        ])
      ).rows[0].n,
    );

  it('exits within 2 s with 130, closes its database session and leaves no output file', async () => {
    const out = join(dir, 'result.json');
    let interruptedAt = 0;
    const run = await runFetcherCli(['extract', '--request', join(dir, 'request.json'), '--datasource', 'pg=env:PG_URL', '--out', out], {
      env: { PG_URL: pg().url },
      started: (child) => {
        // Once rows are arriving in the temporary file, the extraction is under way.
        void waitUntil(
          () => readdirSync(dir).some((name) => name.endsWith('.partial') && statSync(join(dir, name)).size > 1024 * 1024),
          30_000,
          'rows in the temporary file',
        ).then(async () => {
          expect(await sessionsOnSource()).toBeGreaterThan(0);
          interruptedAt = Date.now();
          child.kill('SIGINT');
        });
      },
    });
    expect(interruptedAt).toBeGreaterThan(0);
    expect(Date.now() - interruptedAt).toBeLessThan(2_000);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/interrupted; every session closed, nothing written/);
    expect(readdirSync(dir)).toEqual(['request.json']);
    // The server sees the session end as soon as the socket closes.
    await waitUntil(async () => (await sessionsOnSource()) === 0, 2_000, 'the session to end on the server');
  });
});
