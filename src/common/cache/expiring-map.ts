import { systemClock } from '../clock/clock.js';

/**
 * A map whose entries expire, bounded by entry count: for what a caller's behaviour fills (hashes
 * of unknown credentials, client addresses), so a flood of distinct keys costs bounded memory.
 * Entries leave in insertion order when the map is full; expired ones are dropped as they are met,
 * from the oldest on every write, so nothing needs a timer.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly expiresAt: number }>();

  constructor(
    private readonly defaultTtlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = () => systemClock.nowMs(),
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Sets (or replaces, as the newest entry) `key` for `ttlMs`. */
  set(key: string, value: V, ttlMs = this.defaultTtlMs): void {
    const now = this.now();
    this.entries.delete(key);
    for (const [oldest, entry] of this.entries) {
      if (entry.expiresAt > now && this.entries.size < this.maxEntries) break;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: now + ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
