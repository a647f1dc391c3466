import { describe, expect, it } from 'vitest';
import { DatasourceType } from '../../datasource-type.js';
import type { ResolvedDatasource } from '../engine-connector.js';
import { classifyConnectError, ConnectTimeoutError, toConnectError } from './mysql-connect-error.js';
import { UnsupportedSslModeError } from './mysql-ssl.js';

/** Shaped like mysql2's server errors: message, ER_ code, errno, SQLSTATE. */
const serverError = (code: string, errno: number, message: string) =>
  Object.assign(new Error(message), { code, errno, sqlState: '28000', fatal: true });
/** Shaped like a node socket / DNS / TLS error, or mysql2's own protocol errors. */
const nodeError = (code: string, message: string) => Object.assign(new Error(message), { code });

const DS: ResolvedDatasource = {
  id: 'id-1',
  configName: 'ledger_db',
  type: DatasourceType.MySQL,
  host: 'db.internal.example',
  port: 3307,
  databaseName: 'ledger',
  schemaName: null,
  userName: 'svc_fetch',
  password: 'hunter2-very-secret',
  ssl: { mode: 'true' },
  metadata: {},
  productName: 'p',
  internal: false,
};

describe('MySQL connect error classification', () => {
  it.each<[string, unknown, string]>([
    ['wrong password / unknown user (1045)', serverError('ER_ACCESS_DENIED_ERROR', 1045, "Access denied for user 'svc_fetch'@'10.0.0.2' (using password: YES)"), 'auth_failed'],
    ['no right to the database (1044)', serverError('ER_DBACCESS_DENIED_ERROR', 1044, "Access denied for user 'svc_fetch'@'%' to database 'ledger'"), 'auth_failed'],
    ['host not allowed (1130)', serverError('ER_HOST_NOT_PRIVILEGED', 1130, "Host '10.0.0.2' is not allowed to connect"), 'auth_failed'],
    ['account locked (MariaDB 4151), known by number only', Object.assign(new Error('Access denied, this account is locked'), { errno: 4151 }), 'auth_failed'],
    ['unknown database (1049)', serverError('ER_BAD_DB_ERROR', 1049, "Unknown database 'ledger'"), 'database_not_found'],
    ['connection refused', nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:3306'), 'unreachable'],
    ['no route', nodeError('EHOSTUNREACH', 'connect EHOSTUNREACH'), 'unreachable'],
    ['unknown host', nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND db'), 'unreachable'],
    ['network down', nodeError('ENETUNREACH', 'connect ENETUNREACH'), 'unreachable'],
    ['DNS temporary failure', nodeError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN db'), 'unreachable'],
    ['our connect deadline', new ConnectTimeoutError('connect timeout'), 'timeout'],
    ["mysql2's connectTimeout", nodeError('ETIMEDOUT', 'connect ETIMEDOUT'), 'timeout'],
    ['server without SSL', nodeError('HANDSHAKE_NO_SSL_SUPPORT', 'Server does not support secure connection'), 'tls'],
    ['handshake failure (mysql2 rewrites the code)', nodeError('HANDSHAKE_SSL_ERROR', 'self-signed certificate'), 'tls'],
    ['unknown CA', nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'), 'tls'],
    ['host name mismatch', nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), 'tls'],
    ['bad PEM', nodeError('ERR_OSSL_PEM_NO_START_LINE', 'error:0480006C:PEM routines::no start line'), 'tls'],
    ['unsupported SSL mode', new UnsupportedSslModeError('unsupported MySQL SSL mode "x"'), 'tls'],
    ['too many connections (1040)', serverError('ER_CON_COUNT_ERROR', 1040, 'Too many connections'), 'unknown'],
    ['connection lost', nodeError('PROTOCOL_CONNECTION_LOST', 'Connection lost: The server closed the connection.'), 'unknown'],
    ['not even an error', 'boom', 'unknown'],
  ])('%s → reason', (_label, error, reason) => {
    expect(classifyConnectError(error)).toBe(reason);
  });

  it.each<[string, unknown, RegExp]>([
    ['auth_failed', serverError('ER_ACCESS_DENIED_ERROR', 1045, "Access denied for user 'svc_fetch'@'10.0.0.2' (using password: YES)"), /authentication failed/],
    ['auth_failed', serverError('ER_DBACCESS_DENIED_ERROR', 1044, "Access denied for user 'svc_fetch'@'%' to database 'ledger'"), /may not use database "ledger"/],
    ['database_not_found', serverError('ER_BAD_DB_ERROR', 1049, "Unknown database 'ledger'"), /database "ledger" does not exist on db\.internal\.example:3307/],
    ['unreachable', nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:3307'), /cannot reach db\.internal\.example:3307 \(connection refused\)/],
    ['timeout', new ConnectTimeoutError('connect timeout'), /no answer from db\.internal\.example:3307 within 2500 ms/],
    ['tls', nodeError('HANDSHAKE_NO_SSL_SUPPORT', 'Server does not support secure connection'), /server does not support SSL/],
    ['tls', nodeError('HANDSHAKE_SSL_ERROR', 'self-signed certificate'), /TLS negotiation failed \(HANDSHAKE_SSL_ERROR\)/],
    ['unknown', serverError('ER_CON_COUNT_ERROR', 1040, "Too many connections for 'svc_fetch'"), /connection failed \(ER_CON_COUNT_ERROR\)/],
  ])('%s: message names the datasource and the reason, without secrets', (reason, error, pattern) => {
    const connectError = toConnectError(error, DS, 2500);
    expect(connectError.reason).toBe(reason);
    expect(connectError.configName).toBe('ledger_db');
    expect(connectError.message).toMatch(/^Cannot connect to MySQL datasource "ledger_db": /);
    expect(connectError.message).toMatch(pattern);
    expect(connectError.message).not.toContain('svc_fetch');
    expect(connectError.message).not.toContain('hunter2');
    expect(connectError.message).not.toContain('://');
  });
});
