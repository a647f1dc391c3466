import { QueryFailedError } from 'typeorm';

/** True when an insert or update hit a unique index, on PostgreSQL or SQLite. */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: string } | undefined)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A unique index as the two stores name it in their errors. */
export interface UniqueIndex {
  readonly name: string;
  readonly table: string;
  readonly columns: readonly string[];
}

/**
 * True when a unique violation is of `index` and not of another one of the table: PostgreSQL
 * names the index it hit, SQLite the columns (`UNIQUE constraint failed: jobs.a, jobs.b`).
 */
export function violatesIndex(error: unknown, index: UniqueIndex): boolean {
  if (!isUniqueViolation(error)) return false;
  const driver = (error as QueryFailedError).driverError as { constraint?: unknown; message?: unknown } | undefined;
  if (typeof driver?.constraint === 'string') return driver.constraint === index.name;
  const columns = index.columns.map((column) => `${index.table}.${column}`).join(', ');
  return typeof driver?.message === 'string' && driver.message.endsWith(`constraint failed: ${columns}`);
}
