import { mkdtemp, readdir, readFile, rm, utimes, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FetCode } from '../../engine/errors/fet-code.js';
import { StorageError } from '../storage.error.js';
import { LocalObjectStore } from './local-object-store.js';

describe('LocalObjectStore', () => {
  let root: string;
  let store: LocalObjectStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'fetcher-local-store-'));
    store = new LocalObjectStore(join(root, 'results'));
  });
  afterEach(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  const key = 'external-data/job-1.json';

  it('shows nothing under the key until complete, then the whole object', async () => {
    const upload = await store.beginUpload(key);
    await upload.write(Buffer.from('abc'));
    await upload.write(Buffer.from('def'));
    expect(await store.exists(key)).toBe(false);
    await expect(store.read(key)).rejects.toMatchObject({ code: FetCode.NotFound });

    await upload.complete();
    expect(await store.exists(key)).toBe(true);
    expect((await store.read(key)).toString()).toBe('abcdef');
    expect((await readFile(join(root, 'results', key))).toString()).toBe('abcdef');
    expect(await readdir(join(root, 'results', '.uploads'))).toEqual([]);
  });

  it('stores and moves again after its directories were removed behind its back (it remembers the ones it made)', async () => {
    const store_ = async (target: string, body: string) => {
      const upload = await store.beginUpload(target);
      await upload.write(Buffer.from(body));
      await upload.complete();
    };
    await store_('external-data/.attempts/a.json', 'first');
    await store.move('external-data/.attempts/a.json', key);
    // An operator's cleanup, a retention sweep of another process: every directory is gone.
    await rm(join(root, 'results'), { recursive: true, force: true });
    await store_('external-data/.attempts/b.json', 'second');
    await store.move('external-data/.attempts/b.json', key);
    expect((await store.read(key)).toString()).toBe('second');
    await expect(store.move('external-data/.attempts/missing.json', key)).rejects.toMatchObject({ code: FetCode.NotFound });
  });

  it('streams an object with its size; a missing one is FET-1001 as for read', async () => {
    const upload = await store.beginUpload(key);
    const body = Buffer.alloc(200_000, 'x');
    await upload.write(body);
    await upload.complete();
    const { stream, sizeBytes } = await store.readStream(key);
    expect(sizeBytes).toBe(body.length);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(body)).toBe(true);
    expect(chunks.length).toBeGreaterThan(1);
    await expect(store.readStream('external-data/missing.json')).rejects.toMatchObject({ code: FetCode.NotFound });
    await expect(store.readStream('external-data')).rejects.toMatchObject({ code: FetCode.NotFound });
  });

  it('keeps streaming the object it opened when a move replaces it meanwhile', async () => {
    for (const [target, body] of [
      [key, 'old object'],
      ['external-data/.attempts/job-1/2-w.json', 'new'],
    ]) {
      const upload = await store.beginUpload(target);
      await upload.write(Buffer.from(body));
      await upload.complete();
    }
    const { stream, sizeBytes } = await store.readStream(key);
    await store.move('external-data/.attempts/job-1/2-w.json', key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect([Buffer.concat(chunks).toString(), sizeBytes]).toEqual(['old object', 10]);
  });

  it('leaves neither the object nor a temp file after abort', async () => {
    const upload = await store.beginUpload(key);
    await upload.write(Buffer.alloc(100_000, 1));
    await upload.abort();
    await upload.abort();
    expect(await store.exists(key)).toBe(false);
    expect(await readdir(join(root, 'results', '.uploads'))).toEqual([]);
    await expect(upload.write(Buffer.from('x'))).rejects.toThrow(StorageError);
  });

  it('replaces an earlier object for the same key atomically', async () => {
    for (const body of ['first', 'second']) {
      const upload = await store.beginUpload(key);
      await upload.write(Buffer.from(body));
      await upload.complete();
    }
    expect((await store.read(key)).toString()).toBe('second');
  });

  it('moves an object over another atomically and removes the source; delete is idempotent', async () => {
    for (const [target, body] of [
      ['external-data/.attempts/job-1/1-w.json', 'new'],
      [key, 'old'],
    ]) {
      const upload = await store.beginUpload(target);
      await upload.write(Buffer.from(body));
      await upload.complete();
    }
    await store.move('external-data/.attempts/job-1/1-w.json', key);
    expect((await store.read(key)).toString()).toBe('new');
    expect(await store.exists('external-data/.attempts/job-1/1-w.json')).toBe(false);
    await expect(store.move('external-data/.attempts/job-1/1-w.json', key)).rejects.toMatchObject({ code: FetCode.NotFound });
    await store.delete(key);
    await store.delete(key);
    expect(await store.exists(key)).toBe(false);
  });

  it.each(['../escape.json', 'external-data/../../escape.json', '/etc/passwd', 'a\0b', '', '.uploads/x.part', 'a\\b'])(
    'refuses the key %j',
    async (bad) => {
      await expect(store.beginUpload(bad)).rejects.toBeInstanceOf(StorageError);
      await expect(store.read(bad)).rejects.toBeInstanceOf(StorageError);
      await expect(store.readStream(bad)).rejects.toBeInstanceOf(StorageError);
      await expect(store.exists(bad)).rejects.toBeInstanceOf(StorageError);
      expect(await readdir(root)).not.toContain('escape.json');
    },
  );

  it('pings a writable directory (creating it) and fails on one it cannot write', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
    const file = join(root, 'not-a-dir');
    await writeFile(file, 'x');
    await expect(new LocalObjectStore(join(file, 'results')).ping()).rejects.toMatchObject({ code: FetCode.StorageFailed });
  });

  it('sweeps only stale temp files', async () => {
    const uploads = join(root, 'results', '.uploads');
    await mkdir(uploads, { recursive: true });
    await writeFile(join(uploads, 'old.part'), 'x');
    await writeFile(join(uploads, 'fresh.part'), 'y');
    const longAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    await utimes(join(uploads, 'old.part'), longAgo, longAgo);
    expect(await store.removeStaleUploads()).toBe(1);
    expect(await readdir(uploads)).toEqual(['fresh.part']);
  });
});
