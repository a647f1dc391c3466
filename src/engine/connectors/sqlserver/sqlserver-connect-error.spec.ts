import sql from 'mssql';
import tedious from 'tedious';
import { describe, expect, it } from 'vitest';
import { ConnectTimeoutError } from '../shared/connect-failure.js';
import { classifyConnectError, toConnectError, UnencryptedLoginError, type ConnectContext } from './sqlserver-connect-error.js';
import { UnsupportedSslModeError } from '../shared/tls-options.js';
import { fakeDatasource } from './testing/fake-datasource.js';

/** As mssql's ConnectionPool.connect() rejects: its ConnectionError around tedious' one. */
const fromTedious = (message: string, code: string, cause?: unknown) =>
  new sql.ConnectionError(new tedious.ConnectionError(message, code, cause === undefined ? undefined : { cause }));
/** A node socket / DNS / TLS error. */
const nodeError = (code: string, message: string) => Object.assign(new Error(message), { code });
/** tedious tries every address of the host and reports them together. */
const allFailed = (...errors: Error[]) => new AggregateError(errors, 'Could not connect (sequence)');

const DS = fakeDatasource(1433, { host: 'db.internal.example', userName: 'svc_fetch', password: 'hunter2-very-secret' });
const LOGIN_FAILED = fromTedious("Login failed for user 'svc_fetch'.", 'ELOGIN');

describe('SQL Server connect error classification', () => {
  it.each<[string, unknown, ConnectContext, string]>([
    ['login failed (18456)', LOGIN_FAILED, { serverErrors: [18456] }, 'auth_failed'],
    ['password expired (18487)', LOGIN_FAILED, { serverErrors: [18487] }, 'auth_failed'],
    ['cannot open database (4060), then login failed (18456)', LOGIN_FAILED, { serverErrors: [4060, 18456] }, 'database_not_found'],
    [
      'ELOGIN without the numbers, by its message',
      fromTedious('Cannot open database "ledger" requested by the login. The login failed.', 'ELOGIN'),
      {},
      'database_not_found',
    ],
    ['ELOGIN without the numbers', LOGIN_FAILED, {}, 'auth_failed'],
    ['login refused for another reason (Azure 40613, database unavailable)', LOGIN_FAILED, { serverErrors: [40613] }, 'unknown'],
    [
      'connection refused',
      fromTedious(
        'Failed to connect to db.internal.example:1433 - Could not connect (sequence)',
        'ESOCKET',
        allFailed(nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:1433')),
      ),
      {},
      'unreachable',
    ],
    [
      'no route',
      fromTedious(
        'Failed to connect to db:1433 - Could not connect (sequence)',
        'ESOCKET',
        allFailed(nodeError('EHOSTUNREACH', 'connect EHOSTUNREACH')),
      ),
      {},
      'unreachable',
    ],
    [
      'unknown host',
      fromTedious('Failed to connect to db:1433 - getaddrinfo ENOTFOUND db', 'ESOCKET', nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND db')),
      {},
      'unreachable',
    ],
    [
      'connection dropped',
      fromTedious('Connection lost - socket hang up', 'ESOCKET', nodeError('ECONNRESET', 'socket hang up')),
      {},
      'unreachable',
    ],
    ["tedious' connect timeout", fromTedious('Failed to connect to db:1433 in 15000ms', 'ETIMEOUT'), {}, 'timeout'],
    ['our connect deadline', new ConnectTimeoutError('connect timeout'), {}, 'timeout'],
    [
      'TCP connect timeout',
      fromTedious(
        'Failed to connect to db:1433 - Could not connect (sequence)',
        'ESOCKET',
        allFailed(nodeError('ETIMEDOUT', 'connect ETIMEDOUT')),
      ),
      {},
      'timeout',
    ],
    ['server requires encryption', fromTedious("Server requires encryption, set 'encrypt' config option to true.", 'EENCRYPT'), {}, 'tls'],
    [
      'self-signed certificate',
      fromTedious(
        'Failed to connect to db:1433 - self-signed certificate',
        'ESOCKET',
        nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
      ),
      {},
      'tls',
    ],
    [
      'unknown CA',
      fromTedious(
        'Failed to connect to db:1433 - unable to verify the first certificate',
        'ESOCKET',
        nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'),
      ),
      {},
      'tls',
    ],
    [
      'host name mismatch',
      fromTedious(
        "Failed to connect to db:1433 - Hostname/IP does not match certificate's altnames",
        'ESOCKET',
        nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
      ),
      {},
      'tls',
    ],
    ['bad PEM', nodeError('ERR_OSSL_PEM_NO_START_LINE', 'error:0480006C:PEM routines::no start line'), {}, 'tls'],
    [
      'strict against a server without TDS 8.0',
      fromTedious(
        'Failed to connect to db:1433 - Client network socket disconnected before secure TLS connection was established',
        'ESOCKET',
        nodeError('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'),
      ),
      { sslMode: 'strict' },
      'tls',
    ],
    [
      'strict, connection reset',
      fromTedious('Connection lost - socket hang up', 'ESOCKET', nodeError('ECONNRESET', 'socket hang up')),
      { sslMode: 'strict' },
      'tls',
    ],
    ['login completed without TLS', new UnencryptedLoginError('login completed without TLS'), {}, 'tls'],
    ['unsupported SSL mode', new UnsupportedSslModeError('unsupported SQL Server SSL mode "x"'), {}, 'tls'],
    ['unknown TDS version', fromTedious('Server responded with unknown TDS version.', 'ETDS'), {}, 'unknown'],
    ['not even an error', 'boom', {}, 'unknown'],
  ])('%s → reason', (_label, error, context, reason) => {
    expect(classifyConnectError(error, context)).toBe(reason);
  });

  it.each<[string, unknown, ConnectContext, RegExp]>([
    ['auth_failed', LOGIN_FAILED, { serverErrors: [18456] }, /authentication failed: the server rejected the credentials/],
    ['auth_failed', LOGIN_FAILED, { serverErrors: [18470] }, /the login is disabled/],
    ['auth_failed', LOGIN_FAILED, { serverErrors: [18486] }, /the login is locked out/],
    [
      'database_not_found',
      LOGIN_FAILED,
      { serverErrors: [4060, 18456] },
      /database "ledger" does not exist on db\.internal\.example:1433, or the login may not open it/,
    ],
    [
      'unreachable',
      fromTedious(
        'Failed to connect to db.internal.example:1433 - Could not connect (sequence)',
        'ESOCKET',
        allFailed(nodeError('ECONNREFUSED', 'connect ECONNREFUSED')),
      ),
      {},
      /cannot reach db\.internal\.example:1433 \(connection refused\)/,
    ],
    [
      'unreachable',
      fromTedious('Connection lost - socket hang up', 'ESOCKET'),
      {},
      /cannot reach db\.internal\.example:1433 \(connection lost\)/,
    ],
    ['timeout', new ConnectTimeoutError('connect timeout'), {}, /no answer from db\.internal\.example:1433 within 2500 ms/],
    [
      'tls',
      fromTedious("Server requires encryption, set 'encrypt' config option to true.", 'EENCRYPT'),
      {},
      /requires encryption: use SSL mode "true" or "strict"/,
    ],
    [
      'tls',
      fromTedious(
        'Failed to connect - self-signed certificate',
        'ESOCKET',
        nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
      ),
      {},
      /TLS negotiation failed \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
    ],
    ['unknown', LOGIN_FAILED, { serverErrors: [40613] }, /connection failed \(server error 40613\)/],
    ['unknown', fromTedious('Server responded with unknown TDS version.', 'ETDS'), {}, /connection failed \(ETDS\)/],
  ])('%s: message names the datasource and the reason, without secrets', (reason, error, context, pattern) => {
    const connectError = toConnectError(error, DS, 2500, context);
    expect(connectError.reason).toBe(reason);
    expect(connectError.configName).toBe('mssql_fake');
    expect(connectError.message).toMatch(/^Cannot connect to SQL Server datasource "mssql_fake": /);
    expect(connectError.message).toMatch(pattern);
    expect(connectError.message).not.toContain('svc_fetch');
    expect(connectError.message).not.toContain('hunter2');
    expect(connectError.message).not.toContain('Login failed');
  });
});
