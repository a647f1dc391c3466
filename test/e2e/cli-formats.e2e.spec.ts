import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFetcherCli, summaryOf } from '../helpers/fetcher-cli.js';
import { useTempDatabase } from '../helpers/pg-database.js';

const DATA_REQUEST = { mappedFields: { pg_src: { accounts: ['*'], 'accounting.invoices': ['id', 'amount', 'note'] } } };

describe('fetcher extract --format / --compression', () => {
  const pg = useTempDatabase('cli_formats');
  let dir: string;
  let requestFile: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-cli-formats-'));
    await pg().query(`
      CREATE TABLE accounts (id bigint PRIMARY KEY, email text, balance numeric(38,10), tags text[]);
      INSERT INTO accounts VALUES (1, 'one@example.com', 1.5, '{a}'), (9007199254740993, 'a,"b"', NULL, '{"x,y",NULL}'), (3, '', 0, NULL);
      CREATE SCHEMA accounting;
      CREATE TABLE accounting.invoices (id int PRIMARY KEY, amount numeric(12,2), note text);
      INSERT INTO accounting.invoices VALUES (10, 42.00, E'two\\nlines'), (11, 5.00, NULL);`);
    env = { PG_URL: pg().url };
    requestFile = join(dir, 'request.json');
    writeFileSync(requestFile, JSON.stringify(DATA_REQUEST));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  const extract = (...args: string[]) =>
    runFetcherCli(['extract', '--request', requestFile, '--datasource', 'pg_src=env:PG_URL', ...args], { env });

  it('--format csv --compression gzip writes a folder: a gzip CSV per table and a manifest whose digests match the files', async () => {
    const out = join(dir, 'csv-result');
    const run = await extract('--format', 'csv', '--compression', 'gzip', '--out', out);
    expect(run.code, run.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      format: string;
      compression: string;
      parts: { path: string; table: string; rowCount: number; sizeBytes: number; sha256: string }[];
    };
    expect(manifest).toMatchObject({ version: 1, format: 'csv', compression: 'gzip' });
    expect(manifest.parts.map((part) => [part.table, part.path, part.rowCount])).toEqual([
      ['accounting.invoices', 'pg_src/accounting.invoices.csv.gz', 2],
      ['accounts', 'pg_src/accounts.csv.gz', 3],
    ]);
    for (const part of manifest.parts) {
      const file = readFileSync(join(out, part.path));
      expect([file.length, createHash('sha256').update(file).digest('hex')]).toEqual([part.sizeBytes, part.sha256]);
    }
    const accounts = parse(gunzipSync(readFileSync(join(out, 'pg_src/accounts.csv.gz'))), {
      cast: (value, context) => (context.quoting || value !== '' ? value : null),
    }) as unknown as (string | null)[][];
    expect(accounts).toEqual([
      ['id', 'email', 'balance', 'tags'],
      ['1', 'one@example.com', '1.5000000000', '["a"]'],
      ['3', '', '0.0000000000', null],
      ['9007199254740993', 'a,"b"', null, '["x,y",null]'],
    ]);
    expect(summaryOf(run)).toMatchObject({
      format: 'csv',
      compression: 'gzip',
      parts: manifest.parts.map(({ path }) => expect.objectContaining({ path })),
    });
    expect(readdirSync(dir).sort()).toEqual(['csv-result', 'request.json']);
  });

  it('--format ndjson writes one row per line to stdout', async () => {
    const run = await extract('--format', 'ndjson');
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.toString('utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line) as { table: string }).map((line) => line.table)).toEqual([
      'accounting.invoices',
      'accounting.invoices',
      'accounts',
      'accounts',
      'accounts',
    ]);
    expect(lines[2]).toBe(
      '{"datasource":"pg_src","table":"accounts","row":{"id":1,"email":"one@example.com","balance":"1.5000000000","tags":["a"]}}',
    );
  });

  it('refuses a per-table format to stdout, an unknown format and a non-empty folder, as usage errors naming the flag', async () => {
    const toStdout = await extract('--format', 'csv');
    expect([toStdout.code, toStdout.stderr]).toEqual([2, expect.stringContaining('--format csv writes a folder of parts')]);
    const unknown = await extract('--format', 'xlsx', '--out', join(dir, 'x'));
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('--format must be one of json, ndjson, csv, parquet')]);
    const full = join(dir, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'keep.txt'), 'mine');
    const occupied = await extract('--format', 'csv', '--out', full);
    expect([occupied.code, occupied.stderr]).toEqual([2, expect.stringContaining('exists and is not an empty folder')]);
    expect(readdirSync(full)).toEqual(['keep.txt']);
    rmSync(full, { recursive: true });
  });

  it('a failure in the second table leaves no folder and no part behind', async () => {
    const out = join(dir, 'failed');
    const run = await extract('--format', 'csv', '--out', out, '--limits', 'maxResultBytes=120');
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/FET-1101/);
    expect(existsSync(out)).toBe(false);
    // Nor the temporary folder the first part was written into.
    expect(readdirSync(dir).filter((name) => name.includes('failed'))).toEqual([]);
  });
});
