import { DatasourceType } from '../datasource-type.js';
import { connectErrorDatasource, describeConnectErrors, nodeError, unreachableReasons } from '../testing/connect-error-table.js';
import { ConnectTimeoutError } from '../shared/connect-failure.js';
import { classifyConnectError, toConnectError } from './postgres-connect-error.js';
import { UnsupportedSslModeError } from '../shared/tls-options.js';

/** Shaped like pg's DatabaseError: the server's message and its SQLSTATE. */
const serverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });

describeConnectErrors({
  engine: 'PostgreSQL',
  datasource: connectErrorDatasource(DatasourceType.PostgreSQL, { port: 6543, ssl: { mode: 'require' } }),
  classify: classifyConnectError,
  toConnectError,
  reasons: [
    ['wrong password (28P01)', serverError('28P01', 'password authentication failed for user "svc_fetch"'), 'auth_failed'],
    ['pg_hba rejection / unknown role (28000)', serverError('28000', 'role "svc_fetch" does not exist'), 'auth_failed'],
    ['unknown database (3D000)', serverError('3D000', 'database "ledger" does not exist'), 'database_not_found'],
    ...unreachableReasons(5432),
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
  ],
  messages: [
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
  ],
});
