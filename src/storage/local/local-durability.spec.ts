import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const synced = vi.hoisted(() => [] as string[]);
vi.mock('./local-fs.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./local-fs.js')>();
  return { ...actual, syncDirectory: async (path: string) => void synced.push(path) };
});

const { LocalObjectStore } = await import('./local-object-store.js');

describe('LocalObjectStore durability', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'fetcher-local-durable-'));
    synced.length = 0;
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const write = async (store: InstanceType<typeof LocalObjectStore>, key: string, provisional?: boolean) => {
    const upload = await store.beginUpload(key, provisional === undefined ? undefined : { provisional });
    await upload.write(Buffer.from('bytes'));
    await upload.complete();
  };

  it('makes a final object’s name durable when it completes, and a provisional one’s only when a move publishes it', async () => {
    const store = new LocalObjectStore(join(root, 'results'));
    await write(store, 'external-data/direct.json');
    expect(synced).toEqual([join(root, 'results', 'external-data')]);

    synced.length = 0;
    await write(store, 'external-data/.attempts/job/1-w.json', true);
    expect(synced).toEqual([]);
    await store.move('external-data/.attempts/job/1-w.json', 'external-data/job.json');
    expect(synced).toEqual([join(root, 'results', 'external-data')]);
  });
});
