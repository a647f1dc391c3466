import type { DataSourceOptions, QueryDeepPartialEntity } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { ResultFormats1764921600000 } from '../../src/persistence/migrations/1764921600000-result-formats.js';
import { MIGRATIONS } from '../../src/persistence/migrations/index.js';
import { jobEntities, JOB_ENTITY, type JobRecord } from '../../src/job/job.entity.js';
import { JobResponseDto } from '../../src/job/dto/job-response.dto.js';
import { migrationStores, openMigrated } from '../helpers/migration-stores.js';

const NOW = '2026-03-01T10:00:00.000Z';
const BEFORE = MIGRATIONS.filter((migration) => migration !== ResultFormats1764921600000);
const OLD_JOB = '00000000-0000-7000-8000-0000000000a1';
const NEW_JOB = '00000000-0000-7000-8000-0000000000a2';
const PARTS = [
  {
    datasource: 'pg',
    table: 'public.orders',
    path: `external-data/${NEW_JOB}/pg/public.orders.csv.gz`,
    format: 'csv',
    compression: 'gzip',
    sizeBytes: 120,
    rowCount: 3,
    sha256: 'a'.repeat(64),
    hmac: 'b'.repeat(64),
  },
];

/** A store migrated up to `migrations`, with the job entities of this release when `entities`. */
const openAt = (options: DataSourceOptions, migrations: typeof MIGRATIONS, entities = false) =>
  openMigrated(options, migrations, entities ? jobEntities : undefined);

const stores = migrationStores('it_result_formats');

describe.each(stores)('migration ResultFormats on $kind', ({ options, placeholder }) => {
  it('keeps a completed job of before as a json result, and stores output and parts afterwards', async () => {
    const before = await openAt(options(), BEFORE);
    const p = (count: number) => Array.from({ length: count }, (_, index) => placeholder(index + 1)).join(', ');
    await before.query(
      `INSERT INTO jobs (id, status, request_hash, metadata, mapped_fields, created_at, updated_at, product_name,
         completed_at, result_path, result_hmac, result_sha256, result_size_bytes, result_row_count, result_row_counts)
       VALUES (${p(15)})`,
      [
        OLD_JOB,
        'completed',
        'h'.repeat(64),
        '{"source":"alpha"}',
        '{"pg":{"orders":["*"]}}',
        NOW,
        NOW,
        'alpha',
        NOW,
        `external-data/${OLD_JOB}.json`,
      ]
        // result_hmac, result_sha256, result_size_bytes, result_row_count, result_row_counts
        .concat(['c'.repeat(64), 'd'.repeat(64), '42', '3', '{"pg":{"orders":3}}']),
    );
    await before.destroy();

    const after = await openAt(options(), MIGRATIONS, true);
    try {
      const jobs = after.getRepository<JobRecord>(JOB_ENTITY);
      const old = (await jobs.findOneBy({ id: OLD_JOB })) as JobRecord;
      expect(old.output).toBeNull();
      expect(old.resultParts).toBeNull();
      expect(old.resultSizeBytes).toBe(42);
      const shown = JobResponseDto.from(old);
      expect(shown.output).toEqual({ format: 'json', compression: 'none' });
      expect(shown.result).toEqual({ sizeBytes: 42, rowCount: 3, sha256: 'd'.repeat(64), rowCounts: { pg: { orders: 3 } } });

      const fresh: JobRecord = {
        ...old,
        id: NEW_JOB,
        output: { format: 'csv', compression: 'gzip' },
        resultParts: PARTS as JobRecord['resultParts'],
      };
      await jobs.insert(fresh as QueryDeepPartialEntity<JobRecord>);
      const written = (await jobs.findOneBy({ id: NEW_JOB })) as JobRecord;
      expect(written.output).toEqual({ format: 'csv', compression: 'gzip' });
      expect(written.resultParts).toEqual(PARTS);
      expect(JobResponseDto.from(written).result?.parts).toEqual(PARTS);

      // And back: the columns go, the rows stay.
      await after.undoLastMigration();
      const columns: unknown[] = await after.query(`SELECT id FROM jobs ORDER BY id`);
      expect(columns).toHaveLength(2);
      await expect(after.query('SELECT output FROM jobs')).rejects.toThrow(/output/);
    } finally {
      await after.destroy();
    }
  });
});
