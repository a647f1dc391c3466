import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { PeriodicTask } from '../common/clock/periodic-task.js';
import { Scheduler } from '../common/clock/scheduler.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

export const UNAUTHENTICATED_NETWORK_WARNING_INTERVAL_MS = 60_000;

/**
 * AUTH_MODE=none on an address other machines reach (ALLOW_UNAUTHENTICATED_NETWORK=true) is an
 * explicit choice, but one easily forgotten once made: the process says so every minute it serves,
 * so the line keeps turning up in whatever an operator reads of the logs.
 */
@Injectable()
export class UnauthenticatedNetworkWarning implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Auth');
  private readonly loop: PeriodicTask;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    scheduler: Scheduler,
  ) {
    // Unref'd: a warning never keeps a stopping process alive.
    this.loop = scheduler.every(async () => this.warn(), {
      intervalMs: UNAUTHENTICATED_NETWORK_WARNING_INTERVAL_MS,
      unref: true,
      onError: () => undefined,
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.auth.mode === 'none' && this.config.http.unauthenticatedNetwork) this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  private warn(): void {
    const { host } = this.config.http;
    this.logger.warn(
      `AUTH_MODE=none on HOST=${host} (ALLOW_UNAUTHENTICATED_NETWORK=true): anyone who reaches this address acts as the operator. ` +
        'Set AUTH_MODE=apikey or jwt, or leave HOST unset to listen on 127.0.0.1 only.',
      { authMode: 'none', host },
    );
  }
}
