import { DataSource, QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { nodeSqliteOptions } from './node-sqlite-driver.js';
import { isUniqueViolation, violatesIndex } from './unique-violation.js';

const STREAM = { name: 'uniq_jobs_active_stream', table: 'jobs', columns: ['product_name', 'stream_name'] };
const failed = (driverError: Error) => new QueryFailedError('INSERT …', [], driverError);

/** What SQLite really throws, through TypeORM, for each of two unique indexes of one table. */
async function sqliteErrors(): Promise<{ dedup: unknown; stream: unknown }> {
  const db = await new DataSource(nodeSqliteOptions(':memory:')).initialize();
  await db.query('CREATE TABLE jobs (id text, dedup_key text, product_name text, stream_name text, status text)');
  await db.query('CREATE UNIQUE INDEX uniq_jobs_dedup_key ON jobs (dedup_key)');
  await db.query("CREATE UNIQUE INDEX uniq_jobs_active_stream ON jobs (product_name, stream_name) WHERE status = 'pending'");
  const insert = (...row: string[]) => db.query('INSERT INTO jobs VALUES (?, ?, ?, ?, ?)', row);
  await insert('1', 'k1', 'p', 's', 'pending');
  const errors = {
    dedup: await insert('2', 'k1', 'p', 't', 'pending').catch((error: unknown) => error),
    stream: await insert('3', 'k3', 'p', 's', 'pending').catch((error: unknown) => error),
  };
  await db.destroy();
  return errors;
}

describe('violatesIndex: which unique index an insert hit', () => {
  it('tells the two indexes of a SQLite table apart by the columns it names', async () => {
    const { dedup, stream } = await sqliteErrors();
    expect(isUniqueViolation(dedup)).toBe(true);
    expect(isUniqueViolation(stream)).toBe(true);
    expect(violatesIndex(stream, STREAM)).toBe(true);
    expect(violatesIndex(dedup, STREAM)).toBe(false);
  });

  it('goes by the index name PostgreSQL reports', () => {
    const pgError = (constraint: string) => failed(Object.assign(new Error('duplicate key value'), { code: '23505', constraint }));
    expect(violatesIndex(pgError('uniq_jobs_active_stream'), STREAM)).toBe(true);
    expect(violatesIndex(pgError('uniq_jobs_dedup_key'), STREAM)).toBe(false);
  });

  it('is false for anything that is not a unique violation', () => {
    expect(violatesIndex(new Error('UNIQUE constraint failed: jobs.product_name, jobs.stream_name'), STREAM)).toBe(false);
    expect(violatesIndex(failed(Object.assign(new Error('no such table'), { code: 'SQLITE_ERROR' })), STREAM)).toBe(false);
  });
});
