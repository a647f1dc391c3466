import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFetcherCli, summaryOf } from '../helpers/fetcher-cli.js';
import { useTempDatabase } from '../helpers/pg-database.js';

const request = (stream: string, extra: object = {}) => ({
  mappedFields: { pg_src: { ledger: ['id', 'amount'], accounts: ['id'] } },
  incremental: { stream, cursors: { pg_src: { ledger: 'seq' } }, ...extra },
});

describe('fetcher extract --state (incremental marks in a file)', () => {
  const pg = useTempDatabase('cli_incremental');
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-cli-incremental-'));
    await pg().query(`
      CREATE TABLE ledger (id int PRIMARY KEY, seq bigint NOT NULL, amount numeric(20,4));
      INSERT INTO ledger SELECT g, g / 2, g * 1.25 FROM generate_series(1, 10) g;
      CREATE TABLE accounts (id int PRIMARY KEY);
      INSERT INTO accounts VALUES (1), (2);`);
    env = { PG_URL: pg().url };
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  const extract = (body: object, ...args: string[]) => {
    const file = join(dir, `request-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(body));
    return runFetcherCli(['extract', '--request', file, '--datasource', 'pg_src=env:PG_URL', ...args], { env });
  };
  const ids = (path: string, table: string) =>
    (JSON.parse(readFileSync(path, 'utf8')) as { pg_src: Record<string, { id: number }[]> }).pg_src[table].map((row) => row.id);

  it('reads only what is new since the state file’s marks, rewrites the marks after success, and keeps them after a failure', async () => {
    const state = join(dir, 'ledger.state.json');
    const first = await extract(request('ledger'), '--state', state, '--out', join(dir, 'first.json'));
    expect(first.code, first.stderr).toBe(0);
    expect(ids(join(dir, 'first.json'), 'ledger')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(ids(join(dir, 'first.json'), 'accounts')).toEqual([1, 2]);
    expect(JSON.parse(readFileSync(state, 'utf8'))).toEqual({
      stream: 'ledger',
      marks: { pg_src: { ledger: { column: 'seq', type: 'integer', value: '5' } } },
    });
    expect(summaryOf(first)).toMatchObject({
      incremental: { stream: 'ledger', tables: { pg_src: { ledger: { from: null, to: '5', rows: 10 } } } },
    });

    // Rows at the mark's value arrive late: the documented limit; rows above it are the next run's.
    await pg().query('INSERT INTO ledger VALUES (11, 5, 0), (12, 6, 1), (13, 6, 2), (14, 7, 3)');
    const second = await extract(request('ledger'), '--state', state, '--out', join(dir, 'second.json'));
    expect(second.code, second.stderr).toBe(0);
    expect(ids(join(dir, 'second.json'), 'ledger')).toEqual([12, 13, 14]);
    expect(JSON.parse(readFileSync(state, 'utf8')).marks.pg_src.ledger.value).toBe('7');

    await pg().query('INSERT INTO ledger VALUES (15, 8, 0)');
    const before = readFileSync(state, 'utf8');
    const failed = await extract(request('ledger'), '--state', state, '--out', join(dir, 'failed.json'), '--limits', 'maxResultBytes=10');
    expect(failed.code).not.toBe(0);
    expect(existsSync(join(dir, 'failed.json'))).toBe(false);
    expect(readFileSync(state, 'utf8')).toBe(before);

    const third = await extract(request('ledger'), '--state', state, '--out', join(dir, 'third.json'));
    expect(third.code, third.stderr).toBe(0);
    expect(ids(join(dir, 'third.json'), 'ledger')).toEqual([15]);
  });

  it('starts a first run at initial (inclusive), and refuses a state file of another stream or one that is not a state', async () => {
    const state = join(dir, 'initial.state.json');
    const run = await extract(
      request('from-six', { initial: { pg_src: { ledger: 4 } } }),
      '--state',
      state,
      '--out',
      join(dir, 'initial.json'),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(ids(join(dir, 'initial.json'), 'ledger')).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);

    const other = await extract(request('another'), '--state', state, '--out', join(dir, 'other.json'));
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/holds stream 'from-six', not 'another'/);
    writeFileSync(
      join(dir, 'broken.json'),
      '{"stream":"ledger","marks":{"pg_src":{"ledger":{"column":"seq","type":"float","value":"1"}}}}',
    );
    const broken = await extract(request('ledger'), '--state', join(dir, 'broken.json'), '--out', join(dir, 'broken-out.json'));
    expect(broken.stderr).toMatch(/marks\.pg_src\.ledger: a mark's type is one of/);
    const plain = await extract({ mappedFields: { pg_src: { accounts: ['id'] } } }, '--state', state);
    expect(plain.stderr).toMatch(/--state goes with dataRequest.incremental/);
  });
});
