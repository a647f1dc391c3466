import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Semaphore } from '../engine/concurrency/semaphore.js';
import type { TestGate } from '../engine/probes/connection-probe.js';

/**
 * Caps the connections one process opens at once for connection tests and live schema
 * discoveries (GET …/schema, validate-schema), in all and per target host, so no caller (and no
 * burst of job submissions) can make Fetcher fan out connections to a server. The host is the
 * address the engine will dial, one spelling per address (the engine's gateHost): `DB.x`, `db.x.`
 * and the IP literal they resolve to share one cap.
 */
@Injectable()
export class ConnectionTestSlots {
  private readonly all: Semaphore;
  private readonly hosts = new Map<string, Semaphore>();
  private readonly maxPerHost: number;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'connectionTests'>) {
    this.all = new Semaphore(config.connectionTests.maxConcurrent);
    this.maxPerHost = config.connectionTests.maxPerHost;
  }

  /** The engine's gate for tests and discoveries. */
  readonly gate: TestGate = (host, signal, work) => this.run(host, signal, work);

  /** Runs `work` once a slot for `host` and a global slot are free; waiting counts against `signal`. */
  async run<T>(host: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const perHost = this.hosts.get(host) ?? new Semaphore(this.maxPerHost);
    this.hosts.set(host, perHost);
    try {
      await perHost.acquire(signal);
      try {
        await this.all.acquire(signal);
        try {
          return await work();
        } finally {
          this.all.release();
        }
      } finally {
        perHost.release();
      }
    } finally {
      if (perHost.idle(this.maxPerHost)) this.hosts.delete(host);
    }
  }
}
