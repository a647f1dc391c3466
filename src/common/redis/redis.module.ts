import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';

/** The shared Redis client for caches and rate limits, or null when REDIS_URL is not set. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [APP_CONFIG],
      // ioredis is loaded only when REDIS_URL is set: the embedded mode never needs it.
      useFactory: async (config: AppConfig): Promise<Redis | null> => {
        if (!config.redisUrl) return null;
        const { Redis } = await import('ioredis');
        const logger = new Logger('Redis');
        // Fail fast: a cache or limiter must not hold a request while Redis is away.
        const client = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
        client.on('error', (error) => logger.warn(`redis: ${error.message}`));
        return client;
      },
    },
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly client: Redis | null) {}

  onApplicationShutdown(): void {
    this.client?.disconnect();
  }
}
