import type { AppConfig } from '../config/app-config.js';
import { LocalObjectStore } from './local/local-object-store.js';
import type { ObjectStore } from './object-store.port.js';
import { S3ObjectStore } from './s3/s3-object-store.js';

/** The store the configuration names. Shared by the Nest module and the CLI, which has no DI. */
export function createObjectStore(storage: AppConfig['storage']): LocalObjectStore | S3ObjectStore {
  return storage.kind === 's3' ? new S3ObjectStore(storage.s3) : new LocalObjectStore(storage.resultsDir);
}

export type { ObjectStore };
