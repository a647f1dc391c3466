import type { DataSourceOptions } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { IncrementalStreams1765008000000 } from '../../src/persistence/migrations/1765008000000-incremental-streams.js';
import { MIGRATIONS } from '../../src/persistence/migrations/index.js';
import { jobEntities, JOB_ENTITY, type JobRecord } from '../../src/job/job.entity.js';
import { JobResponseDto } from '../../src/job/dto/job-response.dto.js';
import { streamEntity } from '../../src/stream/stream.entity.js';
import { migrationStores, openMigrated } from '../helpers/migration-stores.js';

const NOW = '2026-03-01T10:00:00.000Z';
const BEFORE = MIGRATIONS.filter((migration) => migration !== IncrementalStreams1765008000000);
const OLD_JOB = '00000000-0000-7000-8000-0000000000b1';

/** A store migrated up to `migrations`, with the job entities of this release when `entities`. */
const openAt = (options: DataSourceOptions, migrations: typeof MIGRATIONS, entities = false) =>
  openMigrated(options, migrations, entities ? (kind) => [...jobEntities(kind), streamEntity(kind)] : undefined);

const stores = migrationStores('it_incremental_migration');

describe.each(stores)('migration IncrementalStreams on $kind', ({ options, placeholder }) => {
  it('keeps a job of before without a stream, adds the streams table and the active-stream index, and goes back', async () => {
    const before = await openAt(options(), BEFORE);
    const p = (count: number) => Array.from({ length: count }, (_, index) => placeholder(index + 1)).join(', ');
    await before.query(
      `INSERT INTO jobs (id, status, request_hash, dedup_key, metadata, mapped_fields, created_at, updated_at, product_name) VALUES (${p(9)})`,
      [OLD_JOB, 'pending', 'h'.repeat(64), 'h'.repeat(64), '{"source":"alpha"}', '{"pg":{"orders":["*"]}}', NOW, NOW, 'alpha'],
    );
    await before.destroy();

    const after = await openAt(options(), MIGRATIONS, true);
    try {
      const old = (await after.getRepository<JobRecord>(JOB_ENTITY).findOneBy({ id: OLD_JOB })) as JobRecord;
      expect(old).toMatchObject({ streamName: null, incremental: null });
      expect(JobResponseDto.from(old)).not.toHaveProperty('incremental');

      // Two active jobs of one stream: the second is refused by the store itself; a finished one is no obstacle.
      const insert = (id: string, hash: string, status: string, stream: string | null) =>
        after.query(
          `INSERT INTO jobs (id, status, request_hash, dedup_key, metadata, mapped_fields, created_at, updated_at, product_name, stream_name)
           VALUES (${p(10)})`,
          [id, status, hash, hash, '{"source":"alpha"}', '{"pg":{"orders":["*"]}}', NOW, NOW, 'alpha', stream],
        );
      await insert('00000000-0000-7000-8000-0000000000b2', 'a'.repeat(64), 'processing', 'nightly');
      await expect(insert('00000000-0000-7000-8000-0000000000b3', 'b'.repeat(64), 'pending', 'nightly')).rejects.toThrow(/unique/i);
      await insert('00000000-0000-7000-8000-0000000000b4', 'c'.repeat(64), 'completed', 'nightly');
      await insert('00000000-0000-7000-8000-0000000000b5', 'd'.repeat(64), 'pending', 'hourly');

      await after.query(`INSERT INTO streams (product_name, name, marks, last_job_id, created_at, updated_at) VALUES (${p(6)})`, [
        'alpha',
        'nightly',
        '{"pg":{"orders":{"column":"id","type":"integer","value":"7"}}}',
        null,
        NOW,
        NOW,
      ]);
      await expect(
        after.query(`INSERT INTO streams (product_name, name, marks, created_at, updated_at) VALUES (${p(5)})`, [
          'alpha',
          'nightly',
          '{}',
          NOW,
          NOW,
        ]),
      ).rejects.toThrow(/unique|duplicate/i);

      await after.undoLastMigration();
      expect(await after.query('SELECT id FROM jobs ORDER BY id')).toHaveLength(4);
      await expect(after.query('SELECT stream_name FROM jobs')).rejects.toThrow(/stream_name/);
      await expect(after.query('SELECT incremental FROM jobs')).rejects.toThrow(/incremental/);
      await expect(after.query('SELECT name FROM streams')).rejects.toThrow(/streams/);
      // And up again on the rows that stayed.
      await after.runMigrations();
      expect(await after.query('SELECT stream_name FROM jobs WHERE stream_name IS NOT NULL')).toEqual([]);
    } finally {
      await after.destroy();
    }
  });
});
