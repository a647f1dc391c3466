import { describe, expect, it } from 'vitest';
import { DatasourceType } from '../datasource-type.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { ConnectTimeoutError } from '../shared/connect-failure.js';
import { classifyConnectError, toConnectError } from './postgres-connect-error.js';
import { UnsupportedSslModeError } from '../shared/tls-options.js';

/** Shaped like pg's DatabaseError: the server's message and its SQLSTATE. */
const serverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });
/** Shaped like a node socket / DNS / TLS error. */
const nodeError = (code: string, message: string) => Object.assign(new Error(message), { code });

const DS: ResolvedDatasource = {
  id: 'id-1',
  configName: 'ledger_db',
  type: DatasourceType.PostgreSQL,
  host: 'db.internal.example',
  port: 6543,
  databaseName: 'ledger',
  schemaName: null,
  userName: 'svc_fetch',
  password: 'hunter2-very-secret',
  ssl: { mode: 'require' },
  metadata: {},
  internal: false,
};

describe('PostgreSQL connect error classification', () => {
  it.each<[string, unknown, string]>([
    ['wrong password (28P01)', serverError('28P01', 'password authentication failed for user "svc_fetch"'), 'auth_failed'],
    ['pg_hba rejection / unknown role (28000)', serverError('28000', 'role "svc_fetch" does not exist'), 'auth_failed'],
    ['unknown database (3D000)', serverError('3D000', 'database "ledger" does not exist'), 'database_not_found'],
    ['connection refused', nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:5432'), 'unreachable'],
    ['no route', nodeError('EHOSTUNREACH', 'connect EHOSTUNREACH'), 'unreachable'],
    ['unknown host', nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND db'), 'unreachable'],
    ['network down', nodeError('ENETUNREACH', 'connect ENETUNREACH'), 'unreachable'],
    ['DNS temporary failure', nodeError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN db'), 'unreachable'],
    ['our connect deadline', new ConnectTimeoutError('connect timeout'), 'timeout'],
    ["pg's connectionTimeoutMillis", new Error('timeout expired'), 'timeout'],
    ['pg-pool wording', new Error('Connection terminated due to connection timeout'), 'timeout'],
    ['OS TCP timeout', nodeError('ETIMEDOUT', 'connect ETIMEDOUT'), 'timeout'],
    ['server without SSL', new Error('The server does not support SSL connections'), 'tls'],
    ['self-signed certificate', nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'tls'],
    ['unknown CA', nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'), 'tls'],
    ['host name mismatch', nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), 'tls'],
    ['expired certificate', nodeError('CERT_HAS_EXPIRED', 'certificate has expired'), 'tls'],
    ['bad PEM', nodeError('ERR_OSSL_PEM_NO_START_LINE', 'error:0480006C:PEM routines::no start line'), 'tls'],
    ['unsupported SSL mode', new UnsupportedSslModeError('unsupported PostgreSQL SSL mode "x"'), 'tls'],
    ['too many connections', serverError('53300', 'too many connections for role "svc_fetch"'), 'unknown'],
    ['anything else', new Error('Connection terminated unexpectedly'), 'unknown'],
    ['not even an error', 'boom', 'unknown'],
  ])('%s → reason', (_label, error, reason) => {
    expect(classifyConnectError(error)).toBe(reason);
  });

  it.each<[string, unknown, RegExp]>([
    ['auth_failed', serverError('28P01', 'password authentication failed for user "svc_fetch"'), /authentication failed/],
    ['database_not_found', serverError('3D000', 'database "ledger" does not exist'), /database "ledger" does not exist/],
    [
      'unreachable',
      nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:6543'),
      /cannot reach db\.internal\.example:6543 \(connection refused\)/,
    ],
    ['timeout', new ConnectTimeoutError('connect timeout'), /no answer from db\.internal\.example:6543 within 2500 ms/],
    ['tls', new Error('The server does not support SSL connections'), /server does not support SSL/],
    ['unknown', serverError('53300', 'too many connections for role "svc_fetch"'), /connection failed \(53300\)/],
  ])('%s: message names the datasource and the reason, without secrets', (reason, error, pattern) => {
    const connectError = toConnectError(error, DS, 2500);
    expect(connectError.reason).toBe(reason);
    expect(connectError.configName).toBe('ledger_db');
    expect(connectError.message).toMatch(/^Cannot connect to PostgreSQL datasource "ledger_db": /);
    expect(connectError.message).toMatch(pattern);
    expect(connectError.message).not.toContain('svc_fetch');
    expect(connectError.message).not.toContain('hunter2');
    expect(connectError.message).not.toContain('://');
  });
});
