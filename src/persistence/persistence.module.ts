import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions, type EntitySchema } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { DatabaseKind } from './database-kind.js';
import { MIGRATIONS } from './migrations/index.js';
import { nodeSqliteOptions } from './node-sqlite-driver.js';

/** Any number between processes agrees on; serialises concurrent boots running migrations. */
const MIGRATION_LOCK_ID = 461_006;

/**
 * The tables of the store, as each owning module declares them for the store's kind. Persistence
 * knows no domain: the composition root (bootstrap/store-schema.ts) hands it the list.
 */
export type StoreEntities = (kind: DatabaseKind) => EntitySchema[];

export function dataSourceOptions(config: AppConfig, entitiesOf: StoreEntities): DataSourceOptions {
  const entities = entitiesOf(config.database.kind);
  if (config.database.kind === 'postgres') {
    return {
      type: 'postgres',
      url: config.database.url,
      entities,
      migrations: MIGRATIONS,
      migrationsTableName: 'fetcher_migrations',
      extra: { max: 10, connectionTimeoutMillis: 5_000, application_name: `fetcher-${config.role}` },
    };
  }
  mkdirSync(dirname(config.database.path), { recursive: true });
  return {
    ...nodeSqliteOptions(config.database.path),
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'fetcher_migrations',
    enableWAL: true,
  } as DataSourceOptions;
}

/** Opens the store and applies pending migrations before any other provider can use it. */
export async function openDataSource(options: DataSourceOptions): Promise<DataSource> {
  const dataSource = await new DataSource(options).initialize();
  if (options.type !== 'postgres') {
    await dataSource.runMigrations({ transaction: 'all' });
    return dataSource;
  }
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await dataSource.runMigrations({ transaction: 'all' });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await lock.release();
  }
  return dataSource;
}

@Module({})
export class PersistenceModule {
  static forRoot(entitiesOf: StoreEntities): DynamicModule {
    return {
      module: PersistenceModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => dataSourceOptions(config, entitiesOf),
          dataSourceFactory: async (options) => openDataSource(options as DataSourceOptions),
        }),
      ],
    };
  }
}
