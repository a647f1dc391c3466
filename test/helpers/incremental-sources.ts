import mysql from 'mysql2/promise';
import pg from 'pg';
import { createTempMariaDatabase, TEST_MARIADB } from './mariadb-database.js';
import { createTempDatabase, TEST_PG } from './pg-database.js';

/** A second connection that holds a transaction open, for a commit that lands while a read runs. */
export interface SideConnection {
  /** Begins a transaction and runs `sql` in it, uncommitted. */
  beginWith(sql: string): Promise<void>;
  commit(): Promise<void>;
  close(): Promise<void>;
}

/** A throw-away database of one engine, as the incremental suites use it. */
export interface IncrementalSource {
  readonly url: string;
  /** Runs statements (no parameters). */
  exec(sql: string): Promise<void>;
  side(): Promise<SideConnection>;
  /** The SQL type of a microsecond timestamp without zone. */
  readonly timestampType: string;
  /** A whole-second value of that type as the result renders it (MariaDB keeps the column's six digits, PostgreSQL none). */
  renderedTimestamp(isoSeconds: string): string;
  drop(): Promise<void>;
}

export const INCREMENTAL_SOURCES: Record<string, () => Promise<IncrementalSource>> = {
  postgresql: async () => {
    const db = await createTempDatabase('incremental');
    return {
      url: db.url,
      exec: async (sql) => void (await db.query(sql)),
      timestampType: 'timestamp(6)',
      renderedTimestamp: (isoSeconds) => isoSeconds,
      side: async () => {
        const client = new pg.Client({ ...TEST_PG, database: db.name });
        client.on('error', () => undefined);
        await client.connect();
        return {
          beginWith: async (sql) => void (await client.query(`BEGIN; ${sql}`)),
          commit: async () => void (await client.query('COMMIT')),
          close: () => client.end(),
        };
      },
      drop: () => db.drop(),
    };
  },
  mariadb: async () => {
    const db = await createTempMariaDatabase('incremental');
    return {
      url: `mysql://${db.user}@${db.host}:${db.port}/${db.name}`,
      exec: async (sql) => void (await db.query(sql)),
      timestampType: 'datetime(6)',
      renderedTimestamp: (isoSeconds) => `${isoSeconds}.000000`,
      side: async () => {
        const connection = await mysql.createConnection({ ...TEST_MARIADB, database: db.name, multipleStatements: true });
        connection.on('error', () => undefined);
        return {
          beginWith: async (sql) => void (await connection.query(`START TRANSACTION; ${sql}`)),
          commit: async () => void (await connection.query('COMMIT')),
          close: () => connection.end(),
        };
      },
      drop: () => db.drop(),
    };
  },
};

/** A small seeded generator (mulberry32): a failing model run can be replayed with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
