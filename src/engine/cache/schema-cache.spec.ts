import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SchemaSnapshot, TableInfo } from '../connectors/shared/engine-connector.js';
import { MemorySchemaCache, serializeSnapshot } from './schema-cache.js';

/** A snapshot of `columns` columns, each with a name of `width` characters. */
function snapshot(tag: string, columns: number, width = 20): SchemaSnapshot {
  const table: TableInfo = {
    schema: 'public',
    name: tag,
    key: tag,
    columns: Array.from({ length: columns }, (_, i) => ({ name: `${tag}_${String(i).padStart(width, '0')}`, dataType: 'text' })),
    primaryKey: [],
  };
  return { tables: new Map([[tag, table]]) };
}
const size = (entry: SchemaSnapshot) => Buffer.byteLength(serializeSnapshot(entry));

afterEach(() => {
  vi.useRealTimers();
});

describe('MemorySchemaCache', () => {
  it('holds schemas up to its byte bound, evicting the least recently used first', async () => {
    const a = snapshot('a', 100);
    const perEntry = size(a);
    const cache = new MemorySchemaCache({ maxBytes: perEntry * 3, maxEntryBytes: perEntry * 2 });
    await cache.set('a', a, 60);
    await cache.set('b', snapshot('b', 100), 60);
    await cache.set('c', snapshot('c', 100), 60);
    // Reading a makes b the least recently used.
    expect((await cache.get('a'))?.tables.get('a')?.columns).toHaveLength(100);
    await cache.set('d', snapshot('d', 100), 60);
    expect(await cache.get('b')).toBeUndefined();
    for (const key of ['a', 'c', 'd']) expect(await cache.get(key), key).toBeDefined();
    expect(cache.bytes).toBeLessThanOrEqual(perEntry * 3);
  });

  it('does not keep a schema larger than one entry may be, and leaves the others in place', async () => {
    const small = snapshot('small', 10);
    const cache = new MemorySchemaCache({ maxBytes: 1024 * 1024, maxEntryBytes: size(small) * 5 });
    await cache.set('small', small, 60);
    await cache.set('huge', snapshot('huge', 1_000), 60);
    expect(await cache.get('huge')).toBeUndefined();
    expect(await cache.get('small')).toBeDefined();
    expect(cache.bytes).toBe(size(small));
  });

  it('counts a replaced entry once, and frees an expired one', async () => {
    vi.useFakeTimers();
    const cache = new MemorySchemaCache({ maxBytes: 1024 * 1024 });
    await cache.set('k', snapshot('k', 50), 60);
    await cache.set('k', snapshot('k', 10), 60);
    expect(cache.bytes).toBe(size(snapshot('k', 10)));
    vi.advanceTimersByTime(61_000);
    expect(await cache.get('k')).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});
