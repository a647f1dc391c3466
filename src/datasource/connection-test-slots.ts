import { Semaphore } from '../engine/concurrency/semaphore.js';

/**
 * Caps the connection tests one process has open at once, in all and per target host, so no
 * caller (and no burst of job submissions) can make Fetcher fan out connections to a server.
 */
export class ConnectionTestSlots {
  private readonly all: Semaphore;
  private readonly hosts = new Map<string, Semaphore>();

  constructor(
    maxConcurrent: number,
    private readonly maxPerHost: number,
  ) {
    this.all = new Semaphore(maxConcurrent);
  }

  /** Runs `test` once a slot for `host` and a global slot are free; waiting counts against `signal`. */
  async run<T>(host: string, signal: AbortSignal, test: () => Promise<T>): Promise<T> {
    const key = host.trim().toLowerCase();
    const perHost = this.hosts.get(key) ?? new Semaphore(this.maxPerHost);
    this.hosts.set(key, perHost);
    try {
      await perHost.acquire(signal);
      try {
        await this.all.acquire(signal);
        try {
          return await test();
        } finally {
          this.all.release();
        }
      } finally {
        perHost.release();
      }
    } finally {
      if (perHost.idle(this.maxPerHost)) this.hosts.delete(key);
    }
  }
}
