import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions, type EntitySchema } from 'typeorm';
import { afterAll, beforeAll } from 'vitest';
import type { MIGRATIONS } from '../../src/persistence/migrations/index.js';
import { nodeSqliteOptions } from '../../src/persistence/node-sqlite-driver.js';
import { useTempDatabase } from './pg-database.js';

export interface MigrationStore {
  readonly kind: 'postgres' | 'sqlite';
  readonly options: () => DataSourceOptions;
  /** The n-th bind parameter as the store's SQL spells it. */
  readonly placeholder: (n: number) => string;
}

/**
 * The two stores a migration spec runs on: a temporary PostgreSQL database and a SQLite file in a
 * temporary folder, both made before the file's tests and removed after them.
 */
export function migrationStores(prefix: string): MigrationStore[] {
  const pg = useTempDatabase(prefix);
  let sqliteDir: string | undefined;
  beforeAll(() => {
    sqliteDir = mkdtempSync(join(tmpdir(), `fetcher-${prefix}-`));
  });
  afterAll(() => {
    if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true });
  });
  return [
    { kind: 'postgres', options: () => ({ type: 'postgres', url: pg().url }), placeholder: (n) => `$${n}` },
    { kind: 'sqlite', options: () => nodeSqliteOptions(join(sqliteDir!, 'store.db')), placeholder: () => '?' },
  ];
}

/** A store migrated up to `migrations`, with the entities `entities` gives for its kind (none by default). */
export async function openMigrated(
  options: DataSourceOptions,
  migrations: typeof MIGRATIONS,
  entities: (kind: 'postgres' | 'sqlite') => EntitySchema[] = () => [],
): Promise<DataSource> {
  const kind = options.type === 'postgres' ? 'postgres' : 'sqlite';
  const store = new DataSource({
    ...options,
    migrations,
    migrationsTableName: 'fetcher_migrations',
    entities: entities(kind),
  } as DataSourceOptions);
  await store.initialize();
  await store.runMigrations();
  return store;
}
