import { Inject, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { LocalObjectStore } from './local/local-object-store.js';
import { createObjectStore } from './object-store.factory.js';
import { OBJECT_STORE, type ObjectStore } from './object-store.port.js';
import { ResultStorageService } from './result-storage.service.js';
import type { S3ObjectStore } from './s3/s3-object-store.js';

/**
 * Result storage: OBJECT_STORE (local directory or S3, from `config.storage`) and
 * ResultStorageService. Needs APP_CONFIG from the global AppConfigModule.
 */
@Module({
  providers: [
    {
      provide: OBJECT_STORE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): Promise<ObjectStore> => createObjectStore(config.storage),
    },
    ResultStorageService,
  ],
  exports: [OBJECT_STORE, ResultStorageService],
})
export class StorageModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(StorageModule.name);

  constructor(@Inject(OBJECT_STORE) private readonly store: ObjectStore) {}

  async onModuleInit(): Promise<void> {
    // By kind, not instanceof: the S3 store's module is loaded only when it is configured.
    if (this.store.kind === 's3') {
      const s3 = this.store as S3ObjectStore;
      try {
        await s3.ensureBucket();
      } catch (error) {
        // Boot goes on: credentials without bucket rights are common in production, and /readyz
        // reports a bucket that really is unreachable.
        this.logger.warn(`could not check or create bucket ${s3.bucket}: ${(error as Error).message}`);
      }
    } else if (this.store instanceof LocalObjectStore) {
      const removed = await this.store.removeStaleUploads();
      if (removed > 0) this.logger.log(`removed ${removed} unfinished upload(s) left in ${this.store.root}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
