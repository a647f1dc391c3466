import type { DataSource } from 'typeorm';

/** Timestamps as raw SQL binds them: Date objects on PostgreSQL, TypeORM's UTC datetime text on SQLite. */
export function timeParam(dataSource: DataSource, date: Date): Date | string {
  return dataSource.options.type === 'postgres' ? date : date.toISOString().replace('T', ' ').replace('Z', '');
}

/** A timestamp as a raw query returns it (pg: Date; SQLite: UTC text without zone). */
export function storedTime(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
}

export function storedTimeOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : storedTime(value);
}
