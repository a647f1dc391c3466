import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { JOB_QUEUE, type JobQueue } from '../job/queue/job-queue.port.js';
import { OBJECT_STORE, type ObjectStore } from '../storage/object-store.port.js';
import { REDIS_CLIENT } from '../common/redis/redis.module.js';
import { EVENT_PUBLISHER, type EventPublisher } from '../events/event-publisher.port.js';
import type { Redis } from 'ioredis';
import { Clock } from '../common/clock/clock.js';
import { RecentResult } from '../common/cache/recent-result.js';
import { withDeadline } from '../engine/concurrency/settles-within.js';

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
/** A probe result answers every /readyz that arrives within this long of the probe's start. */
export const READINESS_FRESH_FOR_MS = 1_000;

/**
 * Probes every dependency this process uses, in parallel, each with its own deadline. /readyz is
 * public, so its cost must not follow the caller's rate: a result (failures included) answers
 * every call for a second after its probe began, and calls that arrive while a probe runs wait for
 * that probe. Draining is not cached: it shows from the first call after SIGTERM.
 */
@Injectable()
export class ReadinessService {
  private draining = false;
  private readonly checks: RecentResult<Record<string, DependencyCheck>>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    private readonly clock: Clock,
    @Optional() @Inject(EVENT_PUBLISHER) private readonly publisher?: EventPublisher | null,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis | null,
  ) {
    this.checks = new RecentResult(
      () => this.probeAll(),
      READINESS_FRESH_FOR_MS,
      () => clock.nowMs(),
    );
  }

  markDraining(): void {
    this.draining = true;
  }

  async report(): Promise<ReadinessReport> {
    const checks = await this.checks.get();
    const allUp = Object.values(checks).every((check) => check.status === 'up');
    return { status: this.draining ? 'draining' : allUp ? 'ready' : 'unready', checks };
  }

  private async probeAll(): Promise<Record<string, DependencyCheck>> {
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
    const redis = this.redis;
    if (redis) {
      probes.redis = () => redis.ping();
      kinds.redis = 'redis';
    }
    const publisher = this.publisher;
    if (publisher) {
      probes.broker = () => publisher.ping();
      kinds.broker = publisher.kind;
    }
    const entries = await Promise.all(
      Object.entries(probes).map(async ([name, probe]) => [name, { ...(await timed(probe)), kind: kinds[name] }] as const),
    );
    return Object.fromEntries(entries);
  }
}

async function timed(probe: () => Promise<unknown>): Promise<DependencyCheck> {
  const started = performance.now();
  try {
    await withDeadline(probe(), CHECK_TIMEOUT_MS, () => new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`));
    return { status: 'up', latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      status: 'down',
      latencyMs: Math.round(performance.now() - started),
      error: error instanceof Error ? error.message : String(error),
    };
  }
}
