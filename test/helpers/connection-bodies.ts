import { randomUUID } from 'node:crypto';
import { TEST_SECRETS } from './test-secrets.js';

export interface PgTarget {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
}

export interface PgConnectionBody extends Record<string, unknown> {
  readonly configName: string;
  readonly type: 'POSTGRESQL';
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly userName: string;
  readonly password: string;
}

/**
 * The body that registers `db` as a PostgreSQL connection, under a name unique to the run and
 * with the password trust auth never checks; `overrides` sets what the test is about.
 */
export function pgConnectionBody(db: PgTarget, overrides: Record<string, unknown> = {}): PgConnectionBody {
  return {
    configName: `pg_${randomUUID().slice(0, 8)}`,
    type: 'POSTGRESQL',
    host: db.host,
    port: db.port,
    databaseName: db.name,
    userName: db.user,
    password: TEST_SECRETS.TRUST_AUTH_PASSWORD,
    ...overrides,
  } as PgConnectionBody;
}
