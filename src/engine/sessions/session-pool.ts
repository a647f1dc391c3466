import { createHash } from 'node:crypto';
import type { ConnectorSession, ResolvedDatasource } from '../connectors/shared/engine-connector.js';

export interface SessionPoolOptions {
  /** Idle sessions kept per datasource key; 0 turns reuse off. */
  readonly maxIdlePerDatasource: number;
  /** An idle session older than this is closed. */
  readonly idleMs: number;
}

// 10, as pg-pool's conventional size: at 4 a Manager under 20 concurrent submissions of one connection connected
// afresh for about a third of them (193 logins in 640 jobs), at 10 for 48 of 640; an idle session is one
// backend of the source held for at most idleMs.
export const DEFAULT_SESSION_POOL: SessionPoolOptions = { maxIdlePerDatasource: 10, idleMs: 30_000 };

interface IdleSession {
  readonly session: ConnectorSession;
  readonly since: number;
}

/** A ping that does not answer in this long costs the pooled session; a fresh connect follows. */
export const PING_TIMEOUT_MS = 2_000;

/**
 * Sessions a finished extraction, test or discovery left in the state `open` gave them, kept for
 * the next open of the same datasource. A datasource is pooled only when its caller gave it a
 * `reuseScope` (the service: its product and the connection's version), and the key also holds
 * its id and a digest of everything it logs in with: a session is never handed to another
 * product, another version of the connection or other credentials. A session goes back only if
 * its connector says it is reusable (nothing running, no transaction, never interrupted or
 * failed), and comes out only after a ping proved the server still answers it.
 */
export class SessionPool {
  private readonly idle = new Map<string, IdleSession[]>();
  private sweep: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: SessionPoolOptions) {}

  /** The key sessions of this datasource are pooled under, or undefined when it is never pooled. */
  keyOf(datasource: ResolvedDatasource): string | undefined {
    if (datasource.reuseScope === undefined || this.options.maxIdlePerDatasource <= 0 || this.closed) return undefined;
    return `${datasource.id}\u0000${datasource.reuseScope}\u0000${credentialsDigest(datasource)}`;
  }

  /**
   * A pooled session of `key` that answered a ping within PING_TIMEOUT_MS (and the caller's
   * signal), or undefined. Each session that fails its ping is closed and the next one tried; an
   * abort of `signal` rejects with its reason.
   */
  async take(key: string, signal?: AbortSignal): Promise<ConnectorSession | undefined> {
    for (let entry = this.idle.get(key)?.pop(); entry !== undefined; entry = this.idle.get(key)?.pop()) {
      if (this.idle.get(key)?.length === 0) this.idle.delete(key);
      const { session } = entry;
      try {
        const deadline = AbortSignal.timeout(PING_TIMEOUT_MS);
        await (session.ping as NonNullable<ConnectorSession['ping']>)(signal ? AbortSignal.any([signal, deadline]) : deadline);
        return session;
      } catch {
        // Dead or busy: it costs this one round trip, and the caller opens a fresh session.
        void session.close();
        if (signal?.aborted) throw signal.reason;
      }
    }
    return undefined;
  }

  /**
   * Takes `session` back for `key` when it is reusable and there is room; closes it otherwise.
   * Resolves once it is pooled or closed.
   */
  async give(key: string, session: ConnectorSession): Promise<void> {
    const entries = this.idle.get(key) ?? [];
    if (this.closed || session.reusable !== true || session.ping === undefined || entries.length >= this.options.maxIdlePerDatasource) {
      await session.close();
      return;
    }
    entries.push({ session, since: performance.now() });
    this.idle.set(key, entries);
    this.scheduleSweep();
  }

  /** Closes every idle session of datasource `id` (a connection deleted or changed). */
  async forget(id: string): Promise<void> {
    const prefix = `${id}\u0000`;
    const closing: Promise<void>[] = [];
    for (const [key, entries] of this.idle) {
      if (!key.startsWith(prefix)) continue;
      this.idle.delete(key);
      closing.push(...entries.map((entry) => entry.session.close()));
    }
    await Promise.allSettled(closing);
  }

  /** Closes every idle session, and every session given back from now on. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.sweep);
    this.sweep = undefined;
    const closing = [...this.idle.values()].flat().map((entry) => entry.session.close());
    this.idle.clear();
    await Promise.allSettled(closing);
  }

  /** Idle sessions, in all. */
  get size(): number {
    let count = 0;
    for (const entries of this.idle.values()) count += entries.length;
    return count;
  }

  /** One timer for the whole pool, and none while it is empty: it never holds the process open. */
  private scheduleSweep(): void {
    if (this.sweep !== undefined || this.idle.size === 0) return;
    let oldest = Infinity;
    for (const entries of this.idle.values()) for (const entry of entries) oldest = Math.min(oldest, entry.since);
    this.sweep = setTimeout(
      () => {
        this.sweep = undefined;
        this.closeIdle();
      },
      Math.max(0, oldest + this.options.idleMs - performance.now()),
    );
    this.sweep.unref();
  }

  private closeIdle(): void {
    const expired = performance.now() - this.options.idleMs;
    for (const [key, entries] of this.idle) {
      const kept = entries.filter((entry) => entry.since > expired);
      for (const entry of entries) if (entry.since <= expired) void entry.session.close();
      if (kept.length === 0) this.idle.delete(key);
      else this.idle.set(key, kept);
    }
    this.scheduleSweep();
  }
}

/** Everything a session was opened with: a change to any of it (a PATCH, a rotation) is another key. */
function credentialsDigest(datasource: ResolvedDatasource): string {
  const { type, host, port, databaseName, schemaName, userName, password, ssl, metadata, internal } = datasource;
  const material = JSON.stringify([type, host, port, databaseName, schemaName, userName, password, ssl, metadata, internal]);
  return createHash('sha256').update(material).digest('base64url');
}
