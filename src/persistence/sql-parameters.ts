import type { DataSource } from 'typeorm';

/** Values of one raw SQL statement and their placeholders, in the order the text uses them. */
export interface SqlParameters {
  readonly values: unknown[];
  /** Adds `value` and returns its placeholder: `$n` on PostgreSQL, `?` (positional) on SQLite. */
  bind(value: unknown): string;
}

/** A fresh parameter list for one statement on `dataSource`'s dialect. */
export function sqlParameters(dataSource: DataSource): SqlParameters {
  const postgres = dataSource.options.type === 'postgres';
  const values: unknown[] = [];
  return {
    values,
    bind(value) {
      values.push(value);
      return postgres ? `$${values.length}` : '?';
    },
  };
}
