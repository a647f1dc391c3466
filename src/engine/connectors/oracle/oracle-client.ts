import type { Socket } from 'node:net';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { connectWithin, settleOrCut } from '../shared/settle.js';
import { OracleConfigError } from './oracle-connect-error.js';
import { trackSockets } from './oracle-connect-sockets.js';
import type { OracleColumnMetadata, OracleConnectOptions, OracleConnection, OracleDriver, OracleFetchType } from './oracle-driver.js';
import type { OracleTlsPlan } from './oracle-ssl.js';

/**
 * What the readers and filters rely on, in one statement:
 * - TIME_ZONE UTC: TIMESTAMP WITH LOCAL TIME ZONE prints in UTC (rendered with `Z`), and an
 *   unzoned filter value compared with a zoned column is read as UTC;
 * - NLS_CALENDAR Gregorian: TO_CHAR / TO_DATE with the fixed ISO formats mean ISO dates;
 * - NLS_NUMERIC_CHARACTERS '.,': TO_NUMBER of a filter string and TO_CHAR of a number in `like`
 *   use a decimal point;
 * - NLS_COMP / NLS_SORT BINARY: `=`, `<`, LIKE and ORDER BY compare code points, case-sensitively,
 *   whatever the login's territory (a column's own collation still applies).
 * NLS_DATE_FORMAT and NLS_TIMESTAMP_FORMAT are left alone: no statement here depends on them
 * (every conversion has an explicit format), while a user's view may.
 */
export const SESSION_SETUP_SQL =
  "ALTER SESSION SET TIME_ZONE = '+00:00' NLS_CALENDAR = 'GREGORIAN' NLS_NUMERIC_CHARACTERS = '.,' NLS_COMP = 'BINARY' NLS_SORT = 'BINARY'";

/** Host name or IPv4 (letters, digits, `-`, `_`, dots) or an IPv6 literal, optionally bracketed. */
const HOST_NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?$/;
const IPV6 = /^\[?([0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)\]?$/;
/** Oracle service names: letters, digits, `_ $ # . -` (domain-qualified names included). */
const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9_$#.-]{0,127}$/;

export interface ConnectTarget {
  readonly host: string;
  readonly port: number;
  readonly serviceName: string;
}

/**
 * The parts of the connect descriptor, validated. Values that could break or extend an Oracle Net
 * descriptor (parentheses, `=`, quotes, spaces…) are refused rather than escaped: no legitimate
 * host or service name contains them. The messages are safe to show.
 */
export function connectTarget(ds: Pick<ResolvedDatasource, 'host' | 'port' | 'metadata'>): ConnectTarget {
  const raw = ds.metadata.serviceName;
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    throw new OracleConfigError('database_not_found', 'metadata.serviceName is required for Oracle connections');
  }
  const serviceName = typeof raw === 'string' ? raw.trim() : '';
  if (!SERVICE_NAME.test(serviceName)) {
    throw new OracleConfigError('database_not_found', 'metadata.serviceName must be an Oracle service name (letters, digits, _ $ # . -)');
  }
  const host = ds.host.trim();
  const ipv6 = IPV6.exec(host);
  if (!HOST_NAME.test(host) && ipv6 === null) throw new OracleConfigError('unreachable', 'the host is not a valid host name or IP address');
  if (!Number.isInteger(ds.port) || ds.port < 1 || ds.port > 65535)
    throw new OracleConfigError('unreachable', 'the port must be an integer from 1 to 65535');
  return { host: ipv6 === null ? host : ipv6[1], port: ds.port, serviceName };
}

/** `(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=…)(PORT=…))(CONNECT_DATA=(SERVICE_NAME=…)))` from validated parts. */
export function connectDescriptor(target: ConnectTarget, protocol: 'TCP' | 'TCPS'): string {
  return (
    `(DESCRIPTION=(ADDRESS=(PROTOCOL=${protocol})(HOST=${target.host})(PORT=${target.port}))` +
    `(CONNECT_DATA=(SERVICE_NAME=${target.serviceName})))`
  );
}

/** node-oracledb takes whole seconds; a non-positive deadline means none (its own defaults apply). */
const seconds = (ms: number): number | undefined => (ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : undefined);

/**
 * Structured options for `getConnection` (thin mode). No call timeout: an extraction may stream
 * for as long as the job allows, and the job's own timeout aborts it through `break()`.
 */
export function connectOptions(
  ds: ResolvedDatasource,
  target: ConnectTarget,
  tls: OracleTlsPlan,
  connectTimeoutMs: number,
  extraWallet?: string,
): OracleConnectOptions {
  const timeout = seconds(connectTimeoutMs);
  const walletContent = extraWallet ?? tls.walletContent;
  return {
    user: ds.userName,
    password: ds.password,
    connectString: connectDescriptor(target, tls.protocol),
    ...(timeout === undefined ? {} : { connectTimeout: timeout, transportConnectTimeout: timeout }),
    // Keep-alive probes every minute: a stream paused by a slow consumer is not cut by a firewall.
    expireTime: 1,
    connectionIdPrefix: 'fetcher',
    ...(tls.protocol === 'TCPS'
      ? {
          ...(walletContent === undefined ? {} : { walletContent }),
          sslServerDNMatch: tls.sslServerDNMatch ?? false,
          ...(tls.sslServerCertDN === undefined ? {} : { sslServerCertDN: tls.sslServerCertDN }),
        }
      : {}),
  };
}

/**
 * Fetch types for extraction: NUMBER as the driver's exact decimal text (never a double), CLOB and
 * NCLOB as strings and BLOB as Buffers inline (never Lob objects needing more round trips). Other
 * types keep the driver's value (dates arrive as TO_CHAR text, see oracle-sql.ts).
 */
export function fetchTypeHandler(driver: OracleDriver): (metadata: OracleColumnMetadata) => OracleFetchType | undefined {
  const asString = new Set([driver.DB_TYPE_NUMBER, driver.DB_TYPE_CLOB, driver.DB_TYPE_NCLOB]);
  return (metadata) => {
    if (metadata.dbType === undefined) return undefined;
    if (asString.has(metadata.dbType)) return { type: driver.STRING };
    if (metadata.dbType === driver.DB_TYPE_BLOB) return { type: driver.BUFFER };
    return undefined;
  };
}

/**
 * Hard stop of a connection's socket, for statements that will not end and closes that hang.
 * node-oracledb has no public way to cut the socket; this uses its network session when present.
 * `forceDisconnect` (what the driver's own pool uses on a hung ping) destroys the socket and wakes
 * the call waiting on it, which then fails and releases the connection's lock, so a close() after
 * it does not wait for that call; `disconnect` would leave the call pending forever.
 */
export function destroyConnection(connection: OracleConnection): void {
  const nscon = (connection as unknown as { _impl?: { nscon?: NetworkSession } })._impl?.nscon;
  try {
    if (typeof nscon?.forceDisconnect === 'function') nscon.forceDisconnect();
    else nscon?.disconnect?.(0x0040 /* NSFIMM: immediate, no EOF packet */);
  } catch {
    // already gone
  }
}

/** The part of node-oracledb thin's network session (sqlnet/networkSession.js) used to cut a socket. */
interface NetworkSession {
  forceDisconnect?: (error?: Error) => void;
  disconnect?: (type?: number) => void;
}

/** Closes politely (log off), or cuts the socket when that does not finish in time. Never throws. */
export async function closeConnection(connection: OracleConnection, timeoutMs: number): Promise<void> {
  await settleOrCut(connection.close(), timeoutMs, () => destroyConnection(connection));
}

/**
 * Connects and sets up the session within `timeoutMs` (≤ 0: no deadline of ours). An abort or our
 * deadline rejects at once and cuts the attempt's sockets; a connection that completes afterwards
 * is closed. Other failures are thrown raw, for the caller to classify.
 */
export async function connectOracle(
  driver: OracleDriver,
  options: OracleConnectOptions,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<OracleConnection> {
  signal?.throwIfAborted();
  let abandoned = false;
  const sockets = new Set<Socket>();
  const work = trackSockets(sockets, async () => {
    const connection = await driver.getConnection(options);
    try {
      if (abandoned) throw new Error('connect abandoned');
      await connection.execute(SESSION_SETUP_SQL);
      if (abandoned) throw new Error('connect abandoned');
      return connection;
    } catch (error) {
      void closeConnection(connection, 2_000);
      throw error;
    }
  });
  return connectWithin(work, timeoutMs, signal, () => {
    abandoned = true;
    // The attempt may still be logging in or running the setup: cut its sockets, so that neither
    // the socket nor the driver call outlives the deadline. Nobody waits for it any more.
    for (const socket of sockets) cutWithError(socket);
  });
}

/**
 * Cuts a socket node-oracledb still owns, with an error rather than a plain close: the driver
 * registers every connection it builds for finalization, and its finalizer sends an end-of-file
 * packet unless the transport recorded an error. After a plain close that send throws NJS-500
 * inside the finalizer, an uncaught exception that would take the whole worker down at some later
 * garbage collection.
 */
function cutWithError(socket: Socket): void {
  socket.on('error', () => undefined);
  socket.destroy(new Error('connect attempt abandoned by fetcher'));
}
