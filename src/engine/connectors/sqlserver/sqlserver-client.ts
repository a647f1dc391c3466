import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { ConnectionPool, config as PoolConfig } from 'mssql';
import { mssql } from './sqlserver-driver.js';
import type { Connection as TediousConnection } from 'tedious';
import type { EgressPolicy } from '../../egress/egress-policy.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { connectWithin, settlesWithin } from '../shared/settle.js';
import { UnencryptedLoginError } from './sqlserver-connect-error.js';
import { egressConnector } from './sqlserver-egress.js';
import type { SqlServerTls } from './sqlserver-ssl.js';

/** tedious waits this long for the server to acknowledge a cancel before it drops the connection. */
export const CANCEL_TIMEOUT_MS = 3_000;
/** A session's connection is never reaped for idleness: it lives until close() (or is lost). */
const NEVER_IDLE_MS = 2_147_483_647;
/** tedious treats its connect timeout as a timer delay: "no deadline" is the longest one. */
const LONGEST_TIMER_MS = 2_147_483_647;

/**
 * The tedious connections a pool creates, watched from `beforeConnect`: login error numbers
 * (tedious keeps only the last message), whether TLS was negotiated, and the connections
 * themselves so that a stuck one can be cut (mssql's close() waits for borrowed connections).
 */
export class ConnectionWatch {
  readonly loginErrors: number[] = [];
  readonly connections = new Set<TediousConnection>();
  unencryptedLogins = 0;
  /** Called when a logged-in connection ends or fails; the session installs it. */
  onLost: ((error: Error) => void) | undefined;
  private cutting = false;
  /** The connection that logged in last and is still open: the pool's one, once connectPool is done. */
  private current: TediousConnection | undefined;

  constructor(private readonly requireTls: boolean) {}

  attach(connection: TediousConnection): void {
    // After cut(), a connection the pool still creates is closed before it gets anywhere.
    if (this.cutting) {
      connection.close();
      return;
    }
    this.connections.add(connection);
    let secure = false;
    let loggedIn = false;
    connection.on('secure', () => {
      secure = true;
    });
    // A routed or retried login starts on a new socket, which must negotiate TLS again.
    const insecureAgain = (): void => {
      secure = false;
    };
    // Events tedious emits but does not declare.
    const events = connection as unknown as EventEmitter;
    events.on('rerouting', insecureAgain);
    events.on('retry', insecureAgain);
    connection.on('errorMessage', (token) => {
      if (!loggedIn) this.loginErrors.push(token.number);
    });
    connection.on('connect', (error?: Error) => {
      if (error !== undefined) return;
      loggedIn = true;
      this.current = connection;
      if (this.requireTls && !secure) this.unencryptedLogins++;
    });
    connection.on('error', (error: Error) => {
      if (loggedIn) this.onLost?.(error);
    });
    connection.on('end', () => {
      this.connections.delete(connection);
      if (this.current === connection) this.current = undefined;
      if (loggedIn) this.onLost?.(new Error('connection closed'));
    });
  }

  /** The socket of the session's logged-in connection, if it is open. */
  socket(): Socket | undefined {
    return this.current?.socket;
  }

  /** Closes every connection at once, and any created later: a running request then fails with "Connection closed". */
  cut(): void {
    this.cutting = true;
    for (const connection of this.connections) connection.close();
  }
}

/**
 * Structured options only (no connection string: no escaping bugs, nothing to leak).
 *
 * - requestTimeout 0: an extraction runs as long as the job allows; the job's own deadline
 *   aborts it, and an abort cancels the statement on the server.
 * - pool of exactly one connection that is never reaped: a session is one connection, like
 *   the other engines, and session state never silently moves to a new login.
 * - arrayRowMode: rows as arrays in projection order, which is what the renderer reads.
 * - lowerCaseGuids: uniqueidentifier as lower-case text, the RFC 4122 form PostgreSQL prints.
 * - maxRetriesOnTransientErrors 0: a failed login is reported at once, within our deadline.
 * - validateConnection 'socket': no extra `SELECT 1` round trip before each statement.
 * - connector (with an egress policy): sockets to the checked address, routing checked too.
 */
export function poolConfig(
  ds: ResolvedDatasource,
  tls: SqlServerTls,
  connectTimeoutMs: number,
  watch?: ConnectionWatch,
  egress?: EgressPolicy,
): PoolConfig {
  // tedious declares the connector without its arguments; it passes (options, lookup, signal).
  const connector = egress === undefined ? {} : { connector: egressConnector(egress) as unknown as () => Promise<Socket> };
  return {
    server: ds.host,
    port: ds.port,
    database: ds.databaseName,
    user: ds.userName,
    password: ds.password,
    connectionTimeout: connectTimeoutMs > 0 ? connectTimeoutMs : LONGEST_TIMER_MS,
    requestTimeout: 0,
    stream: false,
    parseJSON: false,
    arrayRowMode: true,
    validateConnection: 'socket',
    pool: { max: 1, min: 0, idleTimeoutMillis: NEVER_IDLE_MS },
    options: {
      appName: 'fetcher',
      encrypt: tls.encrypt,
      trustServerCertificate: tls.trustServerCertificate,
      cryptoCredentialsDetails: { ...tls.cryptoCredentialsDetails },
      lowerCaseGuids: true,
      useUTC: true,
      maxRetriesOnTransientErrors: 0,
      cancelTimeout: CANCEL_TIMEOUT_MS,
      enableArithAbort: true,
      abortTransactionOnError: false,
      ...connector,
    },
    ...(watch === undefined ? {} : { beforeConnect: (connection: TediousConnection) => watch.attach(connection) }),
  };
}

/** The round trip that proves the login works and names the server session (for diagnostics and tests). */
export const SESSION_SETUP_SQL = 'SELECT @@SPID';

export interface ConnectedPool {
  readonly pool: ConnectionPool;
  readonly watch: ConnectionWatch;
  /** The server session id (`@@SPID`) of the connection. */
  readonly spid: number;
}

/**
 * Connects (mssql logs in once to probe, then once more for the pool's connection) and runs the
 * setup round trip, all within `timeoutMs`. An abort or our deadline cuts the connections at
 * once; other failures are thrown raw, for the caller to classify with `watch.loginErrors`.
 */
export async function connectPool(
  config: PoolConfig,
  watch: ConnectionWatch,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ConnectedPool> {
  signal?.throwIfAborted();
  const pool = new (mssql().ConnectionPool)(config);
  // An 'error' event without a listener would crash the process; failures reach us otherwise.
  pool.on('error', () => undefined);
  const work = (async (): Promise<ConnectedPool> => {
    await pool.connect();
    const result = await new (mssql().Request)(pool).query<[number]>(SESSION_SETUP_SQL);
    if (watch.unencryptedLogins > 0) throw new UnencryptedLoginError('login completed without TLS');
    return { pool, watch, spid: Number(result.recordset[0]?.[0]) };
  })();
  return connectWithin(work, timeoutMs, signal, () => {
    watch.cut();
    // The connect attempt settles once its connections are cut; only then can the pool close
    // (mssql refuses to close a pool that is connecting). Nobody needs to wait for that.
    void work
      .catch(() => undefined)
      .then(() => pool.close())
      .catch(() => undefined);
  });
}

/**
 * Closes the pool politely; when a borrowed connection keeps it from closing within
 * `timeoutMs`, the connections are cut and the close completes.
 */
export async function closePool(connected: Pick<ConnectedPool, 'pool' | 'watch'>, timeoutMs: number): Promise<void> {
  const closed = connected.pool.close();
  if (await settlesWithin(closed, timeoutMs)) return;
  connected.watch.cut();
  await Promise.race([closed.catch(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref())]);
}
