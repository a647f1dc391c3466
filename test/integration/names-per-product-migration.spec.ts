import { type DataSource, type DataSourceOptions } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/persistence/migrations/index.js';
import { NamesPerProduct1764835200000 } from '../../src/persistence/migrations/1764835200000-names-per-product.js';
import { migrationStores, openMigrated } from '../helpers/migration-stores.js';

const NOW = '2026-03-01T10:00:00.000Z';
const BEFORE = MIGRATIONS.filter((migration) => migration !== NamesPerProduct1764835200000);

/** A store migrated up to `migrations`. */
const openAt = (options: DataSourceOptions, migrations: typeof MIGRATIONS) => openMigrated(options, migrations);

const stores = migrationStores('it_names_per_product');

describe.each(stores)('migration NamesPerProduct on $kind', ({ options, placeholder }) => {
  it('keeps existing rows valid, lower-cases products, and lets two products hold one name afterwards', async () => {
    const before = await openAt(options(), BEFORE);
    const p = (count: number) => Array.from({ length: count }, (_, index) => placeholder(index + 1)).join(', ');
    const insertConnection = (store: DataSource, id: string, product: string | null, name: string) =>
      store.query(
        `INSERT INTO connections (id, product_name, config_name, type, host, port, database_name, user_name, password_encrypted, encryption_key_version, created_at, updated_at)
         VALUES (${p(12)})`,
        [id, product, name, 'postgres', 'db', 5432, 'app', 'u', 'sealed', '1', NOW, NOW],
      );
    await insertConnection(before, '00000000-0000-7000-8000-00000000000a', 'Alpha', 'ledger');
    await insertConnection(before, '00000000-0000-7000-8000-00000000000b', null, 'loose');
    await before.query(
      `INSERT INTO jobs (id, status, request_hash, metadata, mapped_fields, created_at, updated_at, product_name) VALUES (${p(8)})`,
      ['00000000-0000-7000-8000-0000000000f1', 'pending', 'h'.repeat(64), '{}', '{}', NOW, NOW, 'alpha'],
    );
    await before.query(`INSERT INTO job_datasources (job_id, config_name) VALUES (${p(2)})`, [
      '00000000-0000-7000-8000-0000000000f1',
      'ledger',
    ]);
    await before.destroy();

    const after = await openAt(options(), MIGRATIONS);
    try {
      const rows: Array<{ product_name: string | null; config_name: string }> = await after.query(
        'SELECT product_name, config_name FROM connections ORDER BY config_name',
      );
      expect(rows).toEqual([
        { product_name: 'alpha', config_name: 'ledger' },
        { product_name: null, config_name: 'loose' },
      ]);
      const recorded = await after.query('SELECT config_name, connection_id FROM job_datasources');
      expect(recorded).toEqual([{ config_name: 'ledger', connection_id: null }]);

      await insertConnection(after, '00000000-0000-7000-8000-00000000000c', 'beta', 'ledger');
      await expect(insertConnection(after, '00000000-0000-7000-8000-00000000000d', 'beta', 'ledger')).rejects.toThrow(
        /duplicate key|UNIQUE constraint failed/,
      );
      // The unassigned ones share one namespace: NULL products do not make a name free twice.
      await expect(insertConnection(after, '00000000-0000-7000-8000-00000000000e', null, 'loose')).rejects.toThrow(
        /duplicate key|UNIQUE constraint failed/,
      );
    } finally {
      await after.destroy();
    }
  });
});
