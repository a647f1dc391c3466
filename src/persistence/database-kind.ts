export type DatabaseKind = 'postgres' | 'sqlite';

/** Column types that differ between the production (PostgreSQL) and embedded (SQLite) stores. */
export function columnTypes(kind: DatabaseKind) {
  return kind === 'postgres' ? ({ timestamp: 'timestamptz', json: 'jsonb' } as const) : ({ timestamp: 'datetime', json: 'json' } as const);
}

/** bigint columns come back from pg as strings; every size and count we store fits a double. */
export const bigintAsNumber = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};
