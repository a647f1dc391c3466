import type { DataSourceOptions, EntitySchema } from 'typeorm';
import { apiKeyEntity } from '../auth/api-key/api-key.entity.js';
import type { AppConfig } from '../config/app-config.js';
import { connectionEntity } from '../datasource/connection.entity.js';
import { outboxEntity } from '../events/outbox.entity.js';
import { jobEntities } from '../job/job.entity.js';
import type { DatabaseKind } from '../persistence/database-kind.js';
import { dataSourceOptions } from '../persistence/persistence.module.js';
import { streamEntity } from '../stream/stream.entity.js';
import { webhookEntities } from '../webhook/webhook.entity.js';

/**
 * Every table of the job store, each declared by the module that owns it. Listed here, in the
 * composition root, so that persistence/ imports no domain (docs/architecture.md, "Layers").
 */
export function storeEntities(kind: DatabaseKind): EntitySchema[] {
  return [
    connectionEntity(kind),
    apiKeyEntity(kind),
    ...jobEntities(kind),
    outboxEntity(kind),
    streamEntity(kind),
    ...webhookEntities(kind),
  ];
}

/** The store as the service opens it; the CLI and the integration specs open it the same way. */
export function storeOptions(config: AppConfig): DataSourceOptions {
  return dataSourceOptions(config, storeEntities);
}
