import { isIP } from 'node:net';
import pg from 'pg';
import type { EgressPolicy } from '../../egress/egress-policy.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { connectWithin, settleOrCut } from '../shared/settle.js';
import { cancelFromSecondConnection } from '../shared/statement-cancel.js';
import { cleartextGuard } from './postgres-cleartext.js';
import { SessionSetupError } from './postgres-connect-error.js';
import type { PgSsl } from './postgres-ssl.js';

const identity = (value: string): string => value;

/**
 * Type parsers for this connector's clients only (the global pg registry is left alone): every
 * value stays the server's text. No Date objects (microseconds kept, no local-time surprises),
 * no doubles for int8/numeric, and parsing costs nothing; the encoders render the text to JSON.
 */
export const TEXT_TYPES: pg.CustomTypesConfig = {
  getTypeParser: (() => identity) as unknown as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * The formats the value encoders (and the COPY renderer) rely on, each set and then read back in
 * the same round trip that learns the backend pid (needed to cancel a running statement from a
 * second connection). Read back because a proxy or an odd server could ignore a setting, and
 * then values would come out wrong rather than fail.
 */
const SESSION_SETTINGS: readonly (readonly [name: string, value: string])[] = [
  ['TimeZone', 'UTC'],
  ['DateStyle', 'ISO, YMD'],
  ['IntervalStyle', 'iso_8601'],
  ['extra_float_digits', '1'],
  ['bytea_output', 'hex'],
  ['client_encoding', 'UTF8'],
];

export const SESSION_SETUP_SQL =
  'SELECT ' +
  SESSION_SETTINGS.map(([name, value]) => `pg_catalog.set_config('${name}', '${value}', false)`).join(', ') +
  ", pg_catalog.current_setting('server_encoding'), pg_catalog.pg_backend_pid()";

/** The setup row: every setting as asked, then the server encoding and the backend pid. */
export function checkSessionSetup(row: readonly (string | null)[]): { serverEncoding: string; backendPid: number } {
  SESSION_SETTINGS.forEach(([name, value], i) => {
    // set_config answers with the value in effect, which PostgreSQL may spell its own way.
    if (row[i]?.replace(/\s/g, '').toUpperCase() !== value.replace(/\s/g, '').toUpperCase()) {
      throw new SessionSetupError(
        `the server did not accept ${name} = ${value} (it answered ${JSON.stringify(row[i]?.slice(0, 40) ?? null)})`,
      );
    }
  });
  const n = SESSION_SETTINGS.length;
  return { serverEncoding: String(row[n]), backendPid: Number(row[n + 1]) };
}

/**
 * TLS options that verify the certificate against the record's host name while the socket goes
 * to the checked address: pg sets `servername` only when its `host` is a name, and node checks
 * the identity against `servername` first. An IP literal needs nothing (no SNI for IPs).
 */
function verifiedAgainstName(ssl: PgSsl, egress: EgressPolicy | undefined): PgSsl {
  if (ssl === false || egress === undefined || isIP(egress.target.host) !== 0) return ssl;
  return { ...ssl, servername: egress.target.host };
}

/**
 * Structured options only (no DSN string, so no escaping bugs and nothing to leak). The password
 * is handed over as a function: pg then never falls back to PGPASSWORD or ~/.pgpass, and the
 * value is not kept on the client object. With an egress policy pg dials the checked address
 * and never resolves the name itself; the cancel connection gets the same options.
 */
export function clientConfig(ds: ResolvedDatasource, ssl: PgSsl, connectTimeoutMs: number, egress?: EgressPolicy): pg.ClientConfig {
  const password = ds.password;
  return {
    host: egress === undefined ? ds.host : egress.target.address,
    port: ds.port,
    user: ds.userName,
    password: () => password,
    database: ds.databaseName,
    ssl: verifiedAgainstName(ssl, egress),
    connectionTimeoutMillis: Math.max(0, connectTimeoutMs),
    application_name: 'fetcher',
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types: TEXT_TYPES,
  };
}

/** Hard stop of a client's socket: used for timeouts, aborts and connections that will not end. */
export function destroyClient(client: pg.Client, error?: Error): void {
  client.connection.stream.destroy(error);
}

export interface ConnectedClient {
  readonly client: pg.Client;
  readonly backendPid: number;
  readonly serverEncoding: string;
}

/**
 * Connects and sets up the session within `timeoutMs`, the setup query included: a server that
 * takes the login and then stays silent is given up at the deadline like one that never answers.
 * An abort destroys the socket at once (nothing has run on the server yet) and rethrows the
 * signal's reason; other failures are thrown raw, for the caller to classify.
 * `refusePlaintextPassword`: a cleartext password request over plain TCP fails with
 * PlaintextPasswordRefusedError instead of being answered.
 */
export async function connectClient(
  config: pg.ClientConfig,
  timeoutMs: number,
  signal?: AbortSignal,
  refusePlaintextPassword = false,
): Promise<ConnectedClient> {
  signal?.throwIfAborted();
  const guard = refusePlaintextPassword ? cleartextGuard(config) : undefined;
  const client = new pg.Client(guard?.config ?? config);
  guard?.watch(client);
  // An 'error' event without a listener would crash the process; the session installs its own.
  client.on('error', () => undefined);
  const work = (async () => {
    await client.connect();
    const setup = await client.query<string[]>({ text: SESSION_SETUP_SQL, rowMode: 'array' });
    return { client, ...checkSessionSetup(setup.rows[0] ?? []) };
  })();
  // Like pg's connectionTimeoutMillis, a non-positive value means no deadline.
  return connectWithin(work, timeoutMs, signal, () => destroyClient(client));
}

/**
 * Cancels whatever `pid` is running, from a short-lived second connection with the same options.
 * Resolves false when that connection or the cancel fails; never throws.
 */
export async function cancelBackend(
  config: pg.ClientConfig,
  pid: number,
  timeoutMs: number,
  refusePlaintextPassword = false,
): Promise<boolean> {
  const cancelConfig = { ...config, application_name: 'fetcher-cancel' };
  return cancelFromSecondConnection<pg.Client>(
    {
      open: async () => (await connectClient(cancelConfig, timeoutMs, undefined, refusePlaintextPassword)).client,
      cancel: async (client) => {
        const result = await client.query<string[]>({ text: 'SELECT pg_catalog.pg_cancel_backend($1)', values: [pid], rowMode: 'array' });
        return result.rows[0]?.[0] === 't';
      },
      cut: destroyClient,
      end: endClient,
    },
    timeoutMs,
  );
}

/** Ends a client politely, or destroys its socket when the server does not answer in time. */
export async function endClient(client: pg.Client, timeoutMs: number): Promise<void> {
  await settleOrCut(client.end(), timeoutMs, () => destroyClient(client));
}
