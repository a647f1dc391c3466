import { randomBytes } from 'node:crypto';
import { type Db, MongoClient } from 'mongodb';
import type { ResolvedDatasource } from '../../src/engine/connectors/shared/engine-connector.js';
import { DatasourceType } from '../../src/engine/connectors/datasource-type.js';
import { datasourceRecord } from '../../src/engine/testing/datasource-records.js';

/**
 * Throw-away databases on a MongoDB server named by TEST_MONGO_URL, e.g.
 * `mongodb://user:pass@127.0.0.1:27017/fetcher_test?authSource=admin` (docker/compose.yml can
 * start one). No MongoDB server can run on the development machines, so every suite using this
 * is skipped when the variable is unset, and nothing here connects anywhere then.
 */
export const TEST_MONGO_URL: string | undefined = process.env.TEST_MONGO_URL?.trim() || undefined;

export const MONGO_SKIP_REASON =
  'set TEST_MONGO_URL=mongodb://user:pass@host:port/db?authSource=admin to run against a server (docker/compose.yml starts one)';

export interface MongoTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly authSource: string;
  readonly directConnection: boolean;
  /** `tls=true` → `true`; with `tlsInsecure`/`tlsAllowInvalidCertificates` → `insecure`; else null. */
  readonly sslMode: string | null;
  /** The URL's database: the prefix of the temporary database names. */
  readonly database: string;
}

const flag = (params: URLSearchParams, name: string): boolean => params.get(name)?.toLowerCase() === 'true';

/** A single-host `mongodb://` URL, split into the parts a connection record has. */
export function parseMongoUrl(url: string): MongoTarget {
  const authority = /^[a-z+]+:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
  if (authority.slice(authority.lastIndexOf('@') + 1).includes(',')) throw new Error('TEST_MONGO_URL must name a single host');
  const parsed = new URL(url);
  if (parsed.protocol !== 'mongodb:') throw new Error(`TEST_MONGO_URL must be a mongodb:// URL (got ${parsed.protocol})`);
  const params = parsed.searchParams;
  const tls = flag(params, 'tls') || flag(params, 'ssl');
  const insecure = flag(params, 'tlsInsecure') || flag(params, 'tlsAllowInvalidCertificates');
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? 27017 : Number(parsed.port),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    authSource: params.get('authSource') ?? 'admin',
    directConnection: flag(params, 'directConnection'),
    sslMode: tls ? (insecure ? 'insecure' : 'true') : null,
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'fetcher_test',
  };
}

export interface TempMongoDatabase {
  readonly name: string;
  readonly target: MongoTarget;
  /** The database, through a client of the test itself (not the connector under test). */
  readonly db: Db;
  /** Drops the database and closes the client. Safe to call twice. */
  drop(): Promise<void>;
}

function uniqueName(base: string, prefix: string): string {
  const clean = (text: string) => text.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  // MongoDB database names are at most 63 bytes.
  return `${clean(base).slice(0, 20)}_${clean(prefix).slice(0, 16)}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** A client of the test server, straight from TEST_MONGO_URL. */
export function testMongoClient(): MongoClient {
  if (!TEST_MONGO_URL) throw new Error('TEST_MONGO_URL is not set');
  return new MongoClient(TEST_MONGO_URL, { serverSelectionTimeoutMS: 10_000 });
}

/** Creates an empty, uniquely named database on the TEST_MONGO_URL server. */
export async function createTempMongoDatabase(prefix = 'tmp'): Promise<TempMongoDatabase> {
  if (!TEST_MONGO_URL) throw new Error('TEST_MONGO_URL is not set');
  const target = parseMongoUrl(TEST_MONGO_URL);
  const client = testMongoClient();
  await client.connect();
  const name = uniqueName(target.database, prefix);
  const db = client.db(name);
  let dropped: Promise<void> | undefined;
  return {
    name,
    target,
    db,
    drop() {
      dropped ??= (async () => {
        try {
          await db.dropDatabase();
        } finally {
          await client.close();
        }
      })();
      return dropped;
    },
  };
}

/** A decrypted connection record pointing at `db` on the TEST_MONGO_URL server, as the connector receives it. */
export function resolvedMongoDatasource(
  db: Pick<TempMongoDatabase, 'name' | 'target'>,
  overrides: Partial<ResolvedDatasource> = {},
): ResolvedDatasource {
  const { target } = db;
  const metadata = { authSource: target.authSource, ...(target.directConnection ? { directConnection: 'true' } : {}) };
  return datasourceRecord(
    DatasourceType.MongoDB,
    'mongo_test',
    { ...target, name: db.name },
    { ssl: { mode: target.sslMode }, metadata, ...overrides },
  );
}
