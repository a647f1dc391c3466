import { describe, expect, it } from 'vitest';
import { ExpiringMap } from './expiring-map.js';

describe('ExpiringMap', () => {
  it('answers an entry until its time is up, then forgets it', () => {
    let now = 0;
    const map = new ExpiringMap<number>(1_000, 10, () => now);
    map.set('a', 1);
    map.set('b', 2, 5_000);
    now = 999;
    expect([map.get('a'), map.get('b')]).toEqual([1, 2]);
    now = 1_000;
    expect([map.get('a'), map.has('a'), map.get('b')]).toEqual([undefined, false, 2]);
    expect(map.size).toBe(1);
  });

  it('holds at most maxEntries, letting the oldest go first', () => {
    const map = new ExpiringMap<number>(60_000, 3, () => 0);
    for (const [index, key] of ['a', 'b', 'c', 'd'].entries()) map.set(key, index);
    expect(map.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((key) => map.get(key))).toEqual([undefined, 1, 2, 3]);
    // Setting a key again makes it the newest.
    map.set('b', 9);
    map.set('e', 4);
    expect(['b', 'c', 'd', 'e'].map((key) => map.get(key))).toEqual([9, undefined, 3, 4]);
  });

  it('drops expired entries on writes, so a stream of keys never read again does not pile up', () => {
    let now = 0;
    const map = new ExpiringMap<boolean>(1_000, 1_000_000, () => now);
    for (let i = 0; i < 10_000; i += 1) {
      map.set(`key-${i}`, true);
      now += 1;
    }
    expect(map.size).toBe(1_000);
  });
});
