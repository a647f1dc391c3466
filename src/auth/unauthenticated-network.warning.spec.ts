import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { ManualScheduler } from '../common/clock/testing/manual-scheduler.js';
import type { AppConfig } from '../config/app-config.js';
import { UnauthenticatedNetworkWarning } from './unauthenticated-network.warning.js';

const MINUTE = 60_000;

describe('UnauthenticatedNetworkWarning', () => {
  let scheduler: ManualScheduler;
  let warned: string[];

  beforeEach(() => {
    scheduler = new ManualScheduler(new ManualClock('2026-03-01T10:00:00.000Z'));
    warned = [];
    vi.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warned.push(`${scheduler.clock.now().toISOString().slice(11, 19)} ${String(message)}`);
    });
  });
  afterEach(() => vi.restoreAllMocks());

  const build = (auth: AppConfig['auth']['mode'], unauthenticatedNetwork: boolean) =>
    new UnauthenticatedNetworkWarning(
      { auth: { mode: auth }, http: { host: '0.0.0.0', port: 4006, workerPort: 4007, unauthenticatedNetwork } } as AppConfig,
      scheduler,
    );

  it('warns at boot and then once a minute while it serves, naming the address and the opt-in', async () => {
    const warning = build('none', true);
    warning.onApplicationBootstrap();
    await scheduler.runDue();
    await scheduler.advance(3 * MINUTE - 1);
    expect(warned.map((line) => line.slice(0, 8))).toEqual(['10:00:00', '10:01:00', '10:02:00']);
    expect(warned[0]).toContain('AUTH_MODE=none on HOST=0.0.0.0 (ALLOW_UNAUTHENTICATED_NETWORK=true)');

    await warning.onApplicationShutdown();
    await scheduler.advance(10 * MINUTE);
    expect(warned).toHaveLength(3);
    expect(scheduler.pending).toBe(0);
  });

  it('stays silent on loopback or with authentication', async () => {
    for (const warning of [build('none', false), build('apikey', false)]) {
      warning.onApplicationBootstrap();
      await scheduler.advance(5 * MINUTE);
      await warning.onApplicationShutdown();
    }
    expect(warned).toEqual([]);
  });
});
