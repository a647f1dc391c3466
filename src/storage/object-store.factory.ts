import type { AppConfig } from '../config/app-config.js';
import { LocalObjectStore } from './local/local-object-store.js';
import type { ObjectStore } from './object-store.port.js';
import type { S3ObjectStore } from './s3/s3-object-store.js';

/**
 * The store the configuration names. Shared by the Nest module and the CLI, which has no DI. The S3
 * store (and the minio client under it, several MiB of idle RSS) is imported only when configured.
 */
export async function createObjectStore(storage: AppConfig['storage']): Promise<LocalObjectStore | S3ObjectStore> {
  if (storage.kind === 'local') return new LocalObjectStore(storage.resultsDir);
  const { S3ObjectStore } = await import('./s3/s3-object-store.js');
  return new S3ObjectStore(storage.s3);
}

export type { ObjectStore };
