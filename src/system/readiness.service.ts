import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { JOB_QUEUE, type JobQueue } from '../job/queue/job-queue.port.js';
import { OBJECT_STORE, type ObjectStore } from '../storage/object-store.port.js';

export interface DependencyCheck {
  status: 'up' | 'down';
  latencyMs: number;
  kind?: string;
  error?: string;
}

export interface ReadinessReport {
  status: 'ready' | 'unready' | 'draining';
  checks: Record<string, DependencyCheck>;
}

const CHECK_TIMEOUT_MS = 2_000;

/** Probes every dependency this process uses, in parallel, each with its own deadline. */
@Injectable()
export class ReadinessService implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Lifecycle');
  private draining = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
  ) {}

  beforeApplicationShutdown(signal?: string): void {
    this.draining = true;
    this.logger.log(`draining${signal ? ` on ${signal}` : ''}: readiness is now 503`);
  }

  /** Runs last, after the queue, storage and database have closed. */
  onApplicationShutdown(signal?: string): void {
    this.logger.log(`Fetcher stopped${signal ? ` (${signal})` : ''}`);
  }

  async report(): Promise<ReadinessReport> {
    const probes: Record<string, () => Promise<unknown>> = {
      database: () => this.dataSource.query('SELECT 1'),
      queue: () => this.queue.ping(),
      storage: () => this.store.ping(),
    };
    const kinds: Record<string, string> = {
      database: this.config.database.kind,
      queue: this.queue.kind,
      storage: this.store.kind,
    };
    const entries = await Promise.all(
      Object.entries(probes).map(async ([name, probe]) => [name, { ...(await timed(probe)), kind: kinds[name] }] as const),
    );
    const checks = Object.fromEntries(entries);
    const allUp = entries.every(([, check]) => check.status === 'up');
    return { status: this.draining ? 'draining' : allUp ? 'ready' : 'unready', checks };
  }
}

async function timed(probe: () => Promise<unknown>): Promise<DependencyCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: 'up', latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { status: 'down', latencyMs: Math.round(performance.now() - started), error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
