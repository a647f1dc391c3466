import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import { loadAppConfig } from '../config/load-config.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { partFileName, type PartName } from '../engine/formats/result-parts.js';
import { LocalObjectStore } from './local/local-object-store.js';
import type { ObjectStore } from './object-store.port.js';
import { ResultStorageService, type StagedResult } from './result-storage.service.js';

const JOB = '0190f3c2-0000-7000-8000-00000000d001';
const ATTEMPT = { attempt: 2, workerId: 'host:42:0001' };
const STAGED_AT = `external-data/.attempts/${JOB}/2-host_42_0001`;
const CSV = { format: 'csv', compression: 'gzip' } as const;
const part = (datasource: string, table: string): PartName => ({ datasource, table, ...CSV, fileName: partFileName(table, CSV) });

/** Every file under the store's root, as keys, the local store's temp-file folder left out. */
async function keys(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((key) => !key.startsWith('.uploads'))
    .sort();
}

async function writeWhole(upload: { write(chunk: Buffer): Promise<void>; complete(): Promise<void> }, text: string): Promise<void> {
  await upload.write(Buffer.from(text));
  await upload.complete();
}

describe('a staged result’s parts (local store)', () => {
  let dir: string;
  let root: string;
  let store: ObjectStore;
  let storage: ResultStorageService;

  function service(over: ObjectStore = store): ResultStorageService {
    const config: AppConfig = loadAppConfig({ DATA_DIR: dir, APP_ENC_KEY: randomBytes(32).toString('base64'), NODE_ENV: 'test' });
    return new ResultStorageService(over, config);
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fetcher-parts-'));
    root = join(dir, 'results');
    store = new LocalObjectStore(root);
    storage = service();
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Two parts of `pg` and one of `mongo_main`, then the manifest, all complete. */
  async function writeAll(staged: StagedResult): Promise<string[]> {
    const paths: string[] = [];
    for (const [datasource, table] of [
      ['mongo_main', 'events'],
      ['pg', 'accounting.invoices'],
      ['pg', 'public.orders'],
    ] as const) {
      const target = staged.parts.openPart(part(datasource, table));
      await writeWhole(target.upload, `${datasource}/${table}`);
      paths.push(target.path);
    }
    await writeWhole(staged.parts.openManifest(), '{"version":1}');
    return paths;
  }

  it('stages every part under the attempt, shows none before the commit, then moves every part and the manifest', async () => {
    const staged = storage.stageResult(JOB, ATTEMPT);
    const paths = await writeAll(staged);
    expect(paths).toEqual([
      `external-data/${JOB}/mongo_main/events.csv.gz`,
      `external-data/${JOB}/pg/accounting.invoices.csv.gz`,
      `external-data/${JOB}/pg/public.orders.csv.gz`,
    ]);
    expect(staged.parts.openManifest()).toBe(staged.upload);
    expect(await keys(root)).toEqual([
      `${STAGED_AT}.json`,
      `${STAGED_AT}/mongo_main/events.csv.gz`,
      `${STAGED_AT}/pg/accounting.invoices.csv.gz`,
      `${STAGED_AT}/pg/public.orders.csv.gz`,
    ]);

    await staged.publish();
    expect(await keys(root)).toEqual([...paths, `external-data/${JOB}.json`].sort());
    expect((await readFile(join(root, paths[1] as string))).toString()).toBe('pg/accounting.invoices');
    // Aborting after the commit's publish keeps the result, as for a one-object result.
    await staged.abort();
    expect(await keys(root)).toEqual([...paths, `external-data/${JOB}.json`].sort());
  });

  it('on a failure, aborts the part being written and deletes every completed one: nothing is left', async () => {
    const staged = storage.stageResult(JOB, ATTEMPT);
    await writeWhole(staged.parts.openPart(part('pg', 'a')).upload, 'a');
    const second = staged.parts.openPart(part('pg', 'b')).upload;
    await second.write(Buffer.from('half of b'));
    expect(await keys(root)).toEqual([`${STAGED_AT}/pg/a.csv.gz`]);

    await staged.abort();
    expect(await keys(root)).toEqual([]);
    expect(await readdir(join(root, '.uploads'))).toEqual([]);
  });

  it('deletes every part when the manifest never completes (the last table’s part was written, the manifest failed)', async () => {
    const staged = storage.stageResult(JOB, ATTEMPT);
    for (const table of ['a', 'b']) await writeWhole(staged.parts.openPart(part('pg', table)).upload, table);
    await staged.parts.openManifest().write(Buffer.from('{"vers'));
    expect(await keys(root)).toEqual([`${STAGED_AT}/pg/a.csv.gz`, `${STAGED_AT}/pg/b.csv.gz`]);
    await staged.abort();
    expect(await keys(root)).toEqual([]);
    expect(await readdir(join(root, '.uploads'))).toEqual([]);
  });

  it('removes the parts it had moved when a move of the publish fails, and the abort then leaves nothing', async () => {
    let moves = 0;
    const failing: ObjectStore = Object.assign(Object.create(store) as ObjectStore, {
      move: async (from: string, to: string) => {
        moves += 1;
        if (moves === 3) throw new Error('injected: the store went away');
        await store.move(from, to);
      },
    });
    const staged = service(failing).stageResult(JOB, ATTEMPT);
    await writeAll(staged);
    await expect(staged.publish()).rejects.toThrow('injected');
    await staged.abort();
    expect(await keys(root)).toEqual([]);
  });

  it('refuses two parts under one key, and encodes a datasource name that is no safe path segment', () => {
    const staged = storage.stageResult(JOB, ATTEMPT);
    staged.parts.openPart(part('pg', 'orders'));
    expect(() => staged.parts.openPart(part('pg', 'orders'))).toThrow(expect.objectContaining({ code: FetCode.StorageFailed }));
    expect(staged.parts.openPart(part('../etc', 'orders')).path).toBe(`external-data/${JOB}/%2E.%2Fetc/orders.csv.gz`);
    expect(staged.parts.openPart(part('pg_main-2', 'orders')).path).toBe(`external-data/${JOB}/pg_main-2/orders.csv.gz`);
  });

  it('unstaged, writes parts under their keys, and deletes them when the manifest never completed', async () => {
    const staged = storage.stageResult(JOB);
    await writeWhole(staged.parts.openPart(part('pg', 'a')).upload, 'a');
    expect(await keys(root)).toEqual([`external-data/${JOB}/pg/a.csv.gz`]);
    await staged.abort();
    expect(await keys(root)).toEqual([]);

    const whole = storage.stageResult(JOB);
    const paths = await writeAll(whole);
    await whole.publish();
    await whole.abort();
    expect(await keys(root)).toEqual([...paths, `external-data/${JOB}.json`].sort());
  });

  it('discards what a dead attempt left, its parts included, and nothing of another attempt', async () => {
    await writeAll(storage.stageResult(JOB, ATTEMPT));
    const other = storage.stageResult(JOB, { attempt: 3, workerId: 'other:1:0001' });
    await writeWhole(other.parts.openPart(part('pg', 'a')).upload, 'a');
    await storage.discardAttempt(JOB, ATTEMPT);
    expect(await keys(root)).toEqual([`external-data/.attempts/${JOB}/3-other_1_0001/pg/a.csv.gz`]);
  });
});
