import { describe, expect, it, vi } from 'vitest';
import type { DataSource } from 'typeorm';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import type { AppConfig } from '../config/app-config.js';
import type { JobQueue } from '../job/queue/job-queue.port.js';
import type { ObjectStore } from '../storage/object-store.port.js';
import { READINESS_FRESH_FOR_MS, ReadinessService } from './readiness.service.js';

function readinessOver(database: () => Promise<unknown>) {
  const clock = new ManualClock();
  const query = vi.fn(database);
  const ping = vi.fn(async () => undefined);
  const service = new ReadinessService(
    { database: { kind: 'postgres', url: 'postgres://unused' } } as unknown as AppConfig,
    { query } as unknown as DataSource,
    { kind: 'in-process', ping } as unknown as JobQueue,
    { kind: 'local', ping } as unknown as ObjectStore,
    clock,
  );
  return { service, clock, query };
}

describe('ReadinessService', () => {
  it('answers every call within a second of a probe from that probe, then probes again', async () => {
    const { service, clock, query } = readinessOver(async () => [{ '?column?': 1 }]);
    expect((await service.report()).status).toBe('ready');
    clock.advance(READINESS_FRESH_FOR_MS - 1);
    for (let i = 0; i < 50; i += 1) expect((await service.report()).checks.database.status).toBe('up');
    expect(query).toHaveBeenCalledTimes(1);
    clock.advance(1);
    await service.report();
    expect(query).toHaveBeenCalledTimes(2);
  });

  it('lets calls that arrive while a probe runs wait for that one probe', async () => {
    let answer: (value: unknown) => void = () => undefined;
    const { service, query } = readinessOver(() => new Promise((resolve) => (answer = resolve)));
    const reports = Array.from({ length: 20 }, () => service.report());
    await Promise.resolve();
    answer([]);
    const statuses = (await Promise.all(reports)).map((report) => report.status);
    expect(statuses).toEqual(new Array(20).fill('ready'));
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('keeps a failed probe for the second too, then sees the store come back', async () => {
    let down = true;
    const { service, clock, query } = readinessOver(async () => {
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      return [];
    });
    const first = await service.report();
    expect(first.status).toBe('unready');
    expect(first.checks.database).toMatchObject({ status: 'down', error: 'connect ECONNREFUSED 127.0.0.1:5432' });
    down = false;
    expect((await service.report()).status).toBe('unready');
    expect(query).toHaveBeenCalledTimes(1);
    clock.advance(READINESS_FRESH_FOR_MS);
    expect((await service.report()).status).toBe('ready');
  });

  it('shows draining at once, whatever result it holds', async () => {
    const { service, query } = readinessOver(async () => []);
    expect((await service.report()).status).toBe('ready');
    service.markDraining();
    expect((await service.report()).status).toBe('draining');
    expect(query).toHaveBeenCalledTimes(1);
  });
});
