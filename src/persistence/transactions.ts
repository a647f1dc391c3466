import type { DataSource, EntityManager } from 'typeorm';

const sqliteQueues = new WeakMap<DataSource, Promise<unknown>>();

/**
 * Runs `work` in a transaction. SQLite has one connection per process and cannot nest BEGINs, so
 * its transactions are queued one after another; PostgreSQL runs them concurrently on its pool.
 */
export function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  if (dataSource.options.type === 'postgres') return dataSource.transaction(work);
  const previous = sqliteQueues.get(dataSource) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => dataSource.transaction(work));
  sqliteQueues.set(dataSource, next);
  return next;
}
