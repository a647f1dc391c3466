import type { SchemaSnapshot, TableInfo } from '../connectors/shared/engine-connector.js';
import { systemClock, type Clock } from '../support/clock.js';

/**
 * Discovered schemas, keyed by datasource, its version and the namespaces discovered. An
 * optimisation only: a cache that fails answers a miss. The service shares one through Redis.
 */
export interface SchemaCache {
  get(key: string): Promise<SchemaSnapshot | undefined>;
  set(key: string, snapshot: SchemaSnapshot, ttlSeconds: number): Promise<void>;
}

/**
 * The version (the connection's updatedAt) is part of the key: a PATCH makes every older entry
 * unreachable at once, on every replica, without scanning for keys; they expire by TTL.
 */
export function schemaCacheKey(connectionId: string, version: number, schemas: readonly string[] | null): string {
  const scope = schemas === null ? '*' : [...new Set(schemas)].sort().map(encodeURIComponent).join(',');
  return `fetcher:schema:${connectionId}:${version}:${scope}`;
}

export const serializeSnapshot = (snapshot: SchemaSnapshot) => JSON.stringify([...snapshot.tables.values()]);
export const deserializeSnapshot = (text: string): SchemaSnapshot => ({
  tables: new Map((JSON.parse(text) as TableInfo[]).map((table) => [table.key, table])),
});

export interface MemorySchemaCacheLimits {
  /** Bytes (of the serialised schemas) all entries may take together. Default 32 MiB. */
  readonly maxBytes?: number;
  /** Bytes one entry may take; a larger schema is not cached. Default 4 MiB. */
  readonly maxEntryBytes?: number;
  /** What entries expire by. Default the system's clock. */
  readonly clock?: Clock;
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_ENTRY_BYTES = 4 * 1024 * 1024;

/** Bytes an entry's text takes in memory: V8 keeps a string one or two bytes a character. */
const textBytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * One process's cache, bounded by the bytes of what it holds rather than by a count of entries:
 * a count bounds nothing when one schema can be megabytes. Least recently used entries go first;
 * a schema larger than `maxEntryBytes` is not kept at all.
 */
export class MemorySchemaCache implements SchemaCache {
  private readonly entries = new Map<string, { text: string; bytes: number; expiresAt: number }>();
  private totalBytes = 0;
  private readonly maxBytes: number;
  private readonly maxEntryBytes: number;
  private readonly clock: Clock;

  constructor(limits: MemorySchemaCacheLimits = {}) {
    this.clock = limits.clock ?? systemClock;
    this.maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxEntryBytes = Math.min(limits.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES, this.maxBytes);
  }

  /** Bytes the entries hold now. */
  get bytes(): number {
    return this.totalBytes;
  }

  async get(key: string): Promise<SchemaSnapshot | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.clock.nowMs()) {
      this.totalBytes -= entry.bytes;
      return undefined;
    }
    // Used now: last to be evicted.
    this.entries.set(key, entry);
    return deserializeSnapshot(entry.text);
  }

  async set(key: string, snapshot: SchemaSnapshot, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    this.remove(key);
    const text = serializeSnapshot(snapshot);
    const bytes = textBytes(text);
    if (bytes > this.maxEntryBytes) return;
    const now = this.clock.nowMs();
    this.entries.set(key, { text, bytes, expiresAt: now + ttlSeconds * 1000 });
    this.totalBytes += bytes;
    // Map order is use order: the first key is the least recently used.
    for (const [oldest, entry] of this.entries) {
      if (this.totalBytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.totalBytes -= entry.bytes;
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
  }
}
