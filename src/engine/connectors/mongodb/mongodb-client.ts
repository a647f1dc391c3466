import { isIPv6 } from 'node:net';
import type { MongoClient, MongoClientOptions } from 'mongodb';
import { mongodb } from './mongodb-driver.js';
import type { EgressPolicy } from '../../egress/egress-policy.js';
import { egressLookup } from '../../egress/egress-socket.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { connectWithin } from '../shared/settle.js';
import { tlsOptions } from './mongodb-ssl.js';
import { BSON_READ_OPTIONS } from './mongodb-values.js';

/** A connection record the driver must not be given (bad host, port or database name). */
export class InvalidMongoSettingError extends Error {
  override readonly name = 'InvalidMongoSettingError';

  constructor(
    readonly code: 'FETCHER_MONGO_HOST' | 'FETCHER_MONGO_DATABASE',
    message: string,
  ) {
    super(message);
  }
}

/** The driver's server selection gets the connect timeout; our deadline fires this much later. */
const DEADLINE_GRACE_MS = 1_000;
/** Enough for discovery's parallel sampling plus a read; the pool grows only on demand. */
const MAX_POOL_SIZE = 8;

export interface MongoClientSettings {
  /** `mongodb://host:port/`: built from validated parts only, never credentials or options. */
  readonly url: string;
  readonly options: MongoClientOptions;
}

/** A DNS name, IPv4 address (underscores allowed: container names) or IPv6 literal. */
const HOST_NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$/;

/** `host:port` for the URI, with nothing in it that the URI parser could read as syntax. */
export function hostAddress(host: string, port: number): string {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new InvalidMongoSettingError('FETCHER_MONGO_HOST', 'invalid port');
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIPv6(bare)) return `[${bare}]:${port}`;
  if (bare.length > 253 || !HOST_NAME.test(bare)) throw new InvalidMongoSettingError('FETCHER_MONGO_HOST', 'invalid host name');
  return `${bare}:${port}`;
}

/** MongoDB's rules for database names (the driver would throw later, with less context). */
export function checkDatabaseName(name: string): void {
  if (name === '' || Buffer.byteLength(name) > 63 || /[/\\. "$*<>:|?\u0000]/.test(name)) {
    throw new InvalidMongoSettingError('FETCHER_MONGO_DATABASE', 'invalid database name');
  }
}

/** `metadata.authSource`, else `admin` (where MongoDB keeps users by default). */
export function authSourceOf(ds: ResolvedDatasource): string {
  const value = ds.metadata.authSource;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : 'admin';
}

/**
 * Structured client options: the URI carries only the validated host and port; user and
 * password go in `auth`, so no escaping rule can mangle them and no URI string holds the
 * password. Without a user name the client does not authenticate. SCRAM (what the driver
 * negotiates) never sends the password itself, so the plaintext-password rule has nothing to
 * refuse here.
 *
 * Always a direct connection: the driver talks to the record's host alone and never dials the
 * members a replica set's `hello` advertises (names and addresses the SSRF guard never saw;
 * `metadata.directConnection` is no longer read). With an egress policy, `lookup` answers the
 * checked address for that host, so the name is not resolved again; the URI keeps the name for
 * TLS (SNI and certificate identity).
 */
export function mongoClientSettings(ds: ResolvedDatasource, connectTimeoutMs: number, egress?: EgressPolicy): MongoClientSettings {
  const url = `mongodb://${hostAddress(ds.host, ds.port)}/`;
  checkDatabaseName(ds.databaseName);
  const options: MongoClientOptions = {
    appName: 'fetcher',
    ...tlsOptions(ds.ssl),
    ...BSON_READ_OPTIONS,
    maxPoolSize: MAX_POOL_SIZE,
    // Fetcher only reads.
    retryWrites: false,
  };
  if (ds.userName !== '') {
    options.auth = { username: ds.userName, password: ds.password };
    options.authSource = authSourceOf(ds);
  }
  options.directConnection = true;
  if (egress !== undefined) options.lookup = egressLookup(egress);
  if (connectTimeoutMs > 0) {
    options.serverSelectionTimeoutMS = connectTimeoutMs;
    options.connectTimeoutMS = connectTimeoutMs;
  }
  return { url, options };
}

/**
 * Connects, pings and checks access to the database within the timeout. An abort closes the client and rethrows
 * the signal's reason; other failures are thrown raw, for the caller to classify.
 */
export async function connectMongo(
  settings: MongoClientSettings,
  databaseName: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<MongoClient> {
  signal?.throwIfAborted();
  const client = new (mongodb().MongoClient)(settings.url, settings.options);
  const work = (async () => {
    await client.connect();
    const db = client.db(databaseName);
    await db.command({ ping: 1 });
    // ping needs no privilege: this proves the login may read the database (a user without
    // any right on it, or no credentials on a server with access control, fails here with
    // Unauthorized rather than at discovery). The filter matches nothing: no cursor is left.
    await db.command({ listCollections: 1, filter: { name: '' }, nameOnly: true, authorizedCollections: true });
  })();
  // The close is not awaited on a deadline or an abort: those must return at once; closing only
  // stops monitors and sockets. Our deadline is a backstop after the driver's server selection.
  const deadline = timeoutMs > 0 ? timeoutMs + DEADLINE_GRACE_MS : 0;
  return connectWithin(
    work.then(() => client),
    deadline,
    signal,
    () => void client.close().catch(() => undefined),
  );
}
