import type { Connection, ConnectionOptions } from 'mysql2';
import { mysql2 } from './mysql-driver.js';
import type { EgressPolicy } from '../../egress/egress-policy.js';
import { dialTarget } from '../../egress/egress-socket.js';
import { connectWithin, settleOrCut } from '../shared/settle.js';
import { cancelFromSecondConnection } from '../shared/statement-cancel.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { clearPasswordPlugin } from './mysql-cleartext.js';
import type { MySqlSsl } from './mysql-ssl.js';

/**
 * Seconds the server waits on a blocked socket before it drops the connection. The stream pauses
 * the socket while the consumer is busy (e.g. a slow upload); the default 60 s would cut it.
 */
export const NET_WRITE_TIMEOUT_S = 3_600;
export const NET_READ_TIMEOUT_S = 600;

/**
 * The formats the value encoders rely on, in one statement:
 * - time_zone UTC: TIMESTAMP values are printed in UTC and rendered with `Z`;
 * - the raised net timeouts (see above);
 * - NO_BACKSLASH_ESCAPES removed from sql_mode, because filter values are escaped client-side
 *   with backslashes (mysql-sql.ts renderSql); with that mode a value could end its literal.
 */
export const SESSION_SETUP_SQL =
  `SET SESSION time_zone = '+00:00', net_write_timeout = ${NET_WRITE_TIMEOUT_S}, net_read_timeout = ${NET_READ_TIMEOUT_S}, ` +
  "sql_mode = TRIM(BOTH ',' FROM REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))";

/** Where and how a connection may go: the egress policy of the open, and the plaintext-password rule. */
export interface MySqlTransport {
  readonly egress?: EgressPolicy;
  readonly allowPlaintextPassword?: boolean;
}

const KEEP_ALIVE_INITIAL_DELAY_MS = 10_000;

/**
 * Structured options only (no DSN string: no escaping bugs, nothing to leak). Values stay as the
 * server sends them wherever a JS type would lose something: BIGINT as digit strings, DECIMAL and
 * dates as text, JSON as text. These are options of mysql2's compiled row parser rather than a
 * `typeCast` function, which mysql2 would call through a wrapper and a fresh closure per value.
 * The raw row reader mirrors what mysql2 makes of values with exactly these options
 * (mysql-raw-rows.ts checks them; with others, reads fall back to mysql2's parsed rows).
 *
 * With an egress policy, `host` stays the record's name (mysql2 uses it as TLS servername and
 * for the identity check) while the socket comes from a `stream` factory dialling the checked
 * address, so mysql2 never resolves the name. The KILL QUERY connection gets the same options.
 */
export function connectionOptions(
  ds: ResolvedDatasource,
  ssl: MySqlSsl,
  connectTimeoutMs: number,
  transport: MySqlTransport = {},
): ConnectionOptions {
  const { egress } = transport;
  return {
    host: ds.host,
    // mysql2 sets neither keep-alive nor no-delay on a stream it is given: dialTarget does.
    ...(egress === undefined ? {} : { stream: () => dialTarget(egress.target, ds.port, KEEP_ALIVE_INITIAL_DELAY_MS) }),
    authPlugins: { mysql_clear_password: clearPasswordPlugin(ds.password, transport.allowPlaintextPassword === false) },
    port: ds.port,
    user: ds.userName,
    password: ds.password,
    database: ds.databaseName,
    // 0 disables mysql2's own timer (a non-positive deadline means none, as for PostgreSQL).
    connectTimeout: Math.max(0, connectTimeoutMs),
    ...(ssl === undefined ? {} : { ssl }),
    charset: 'UTF8MB4',
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    dateStrings: true,
    jsonStrings: true,
    rowsAsArray: true,
    multipleStatements: false,
    // A server can never make this client send a local file (LOAD DATA LOCAL INFILE).
    flags: ['-LOCAL_FILES'],
    enableKeepAlive: true,
    keepAliveInitialDelay: KEEP_ALIVE_INITIAL_DELAY_MS,
    connectAttributes: { program_name: 'fetcher' },
  };
}

/** Hard stop of a connection's socket: for timeouts, aborts and statements that will not end. */
export function destroyConnection(connection: Connection): void {
  const socket = (connection as unknown as { stream?: { destroy(): void } }).stream;
  if (socket !== undefined) socket.destroy();
  else connection.destroy();
}

/** Runs one statement; rows as arrays. */
export function runQuery(connection: Connection, sql: string): Promise<unknown[][]> {
  return new Promise((resolve, reject) => {
    connection.query({ sql, rowsAsArray: true }, (error: Error | null, rows: unknown) => {
      if (error) reject(error);
      else resolve(Array.isArray(rows) ? (rows as unknown[][]) : []);
    });
  });
}

export interface ConnectedMySql {
  readonly connection: Connection;
  /** The server's version string (`…-MariaDB…` on MariaDB). */
  readonly serverVersion: string;
}

/**
 * Connects and, unless `setup` is false, sets up the session, all within `timeoutMs`. An abort
 * destroys the socket at once (nothing has run on the server yet) and rethrows the signal's
 * reason; other failures are thrown raw, for the caller to classify.
 */
export async function connectMySql(
  options: ConnectionOptions,
  timeoutMs: number,
  signal?: AbortSignal,
  setup = true,
): Promise<ConnectedMySql> {
  signal?.throwIfAborted();
  const connection = mysql2().createConnection(options);
  // An 'error' event without a listener would crash the process; the session installs its own.
  connection.on('error', () => undefined);
  let serverVersion = '';
  connection.once('connect', (handshake: { serverVersion?: unknown } | undefined) => {
    if (typeof handshake?.serverVersion === 'string') serverVersion = handshake.serverVersion;
  });
  const work = (async () => {
    await new Promise<void>((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve())));
    if (setup) await runQuery(connection, SESSION_SETUP_SQL);
    return { connection, serverVersion };
  })();
  // Our deadline and the abort reject at once: a destroyed socket does not always reach
  // mysql2's connect callback, nor a setup statement on a server gone silent.
  return connectWithin(work, timeoutMs, signal, () => destroyConnection(connection));
}

/**
 * `KILL QUERY <thread>` from a short-lived second connection with the same options (a login may
 * always kill its own statements). Resolves false when that connection or the kill fails; never
 * throws. On an idle thread the kill is a no-op: it does not carry over to the next statement.
 */
export async function killQuery(options: ConnectionOptions, threadId: number, timeoutMs: number): Promise<boolean> {
  if (!Number.isSafeInteger(threadId)) return false;
  const cancelOptions = { ...options, connectAttributes: { program_name: 'fetcher-cancel' } };
  return cancelFromSecondConnection<Connection>(
    {
      open: async () => (await connectMySql(cancelOptions, timeoutMs, undefined, false)).connection,
      cancel: async (connection) => {
        await runQuery(connection, `KILL QUERY ${threadId}`);
        return true;
      },
      cut: destroyConnection,
      end: endConnection,
    },
    timeoutMs,
  );
}

/** Ends a connection politely (COM_QUIT), or destroys its socket when that does not finish in time. */
export async function endConnection(connection: Connection, timeoutMs: number): Promise<void> {
  const ended = new Promise<void>((resolve) => {
    try {
      connection.end(() => resolve());
    } catch {
      resolve();
    }
  });
  await settleOrCut(ended, timeoutMs, () => destroyConnection(connection));
}
