import { DatasourceType } from '../datasource-type.js';
import { connectErrorDatasource, describeConnectErrors, nodeError, unreachableReasons } from '../testing/connect-error-table.js';
import { ConnectTimeoutError } from '../shared/connect-failure.js';
import { classifyConnectError, toConnectError } from './mysql-connect-error.js';
import { UnsupportedSslModeError } from '../shared/tls-options.js';

/** Shaped like mysql2's server errors: message, ER_ code, errno, SQLSTATE. */
const serverError = (code: string, errno: number, message: string) =>
  Object.assign(new Error(message), { code, errno, sqlState: '28000', fatal: true });

describeConnectErrors({
  engine: 'MySQL',
  datasource: connectErrorDatasource(DatasourceType.MySQL, { port: 3307, ssl: { mode: 'true' } }),
  classify: classifyConnectError,
  toConnectError,
  reasons: [
    [
      'wrong password / unknown user (1045)',
      serverError('ER_ACCESS_DENIED_ERROR', 1045, "Access denied for user 'svc_fetch'@'10.0.0.2' (using password: YES)"),
      'auth_failed',
    ],
    [
      'no right to the database (1044)',
      serverError('ER_DBACCESS_DENIED_ERROR', 1044, "Access denied for user 'svc_fetch'@'%' to database 'ledger'"),
      'auth_failed',
    ],
    ['host not allowed (1130)', serverError('ER_HOST_NOT_PRIVILEGED', 1130, "Host '10.0.0.2' is not allowed to connect"), 'auth_failed'],
    [
      'account locked (MariaDB 4151), known by number only',
      Object.assign(new Error('Access denied, this account is locked'), { errno: 4151 }),
      'auth_failed',
    ],
    // MariaDB has been seen answering an unknown user so; it is also its answer for unix_socket accounts.
    [
      'access denied without password part (1698)',
      serverError('ER_ACCESS_DENIED_NO_PASSWORD_ERROR', 1698, "Access denied for user 'svc_fetch'@'10.0.0.2'"),
      'auth_failed',
    ],
    [
      'a privilege the session needs (1227)',
      serverError(
        'ER_SPECIFIC_ACCESS_DENIED_ERROR',
        1227,
        'Access denied; you need (at least one of) the SUPER privilege(s) for this operation',
      ),
      'auth_failed',
    ],
    [
      'change user refused (1873)',
      serverError(
        'ER_ACCESS_DENIED_CHANGE_USER_ERROR',
        1873,
        "Access denied trying to change to user 'svc_fetch'@'%' (using password: YES). Disconnecting",
      ),
      'auth_failed',
    ],
    [
      'password expired, refused at login (1862)',
      serverError('ER_MUST_CHANGE_PASSWORD_LOGIN', 1862, 'Your password has expired.'),
      'auth_failed',
    ],
    [
      'password expired, sandbox mode refuses the session setup (1820)',
      serverError('ER_MUST_CHANGE_PASSWORD', 1820, 'You must SET PASSWORD before executing this statement'),
      'auth_failed',
    ],
    [
      'account locked (MySQL 3118)',
      serverError('ER_ACCOUNT_HAS_BEEN_LOCKED', 3118, "Access denied for user 'svc_fetch'@'%'. Account is locked."),
      'auth_failed',
    ],
    [
      'blocked after failed logins (MySQL 3955)',
      serverError(
        'ER_USER_ACCESS_DENIED_FOR_USER_ACCOUNT_BLOCKED_BY_PASSWORD_LOCK',
        3955,
        "Access denied for user 'svc_fetch'@'%'. Account is blocked for 1 day(s)",
      ),
      'auth_failed',
    ],
    // mysql2 names MariaDB's numbers after MySQL's table: the errno decides.
    [
      'blocked after failed logins (MariaDB 4150, misnamed by mysql2)',
      serverError('ER_BULK_PARSER_UNEXPECTED_CHAR_AFTER_COLUMN_TERMINATOR', 4150, 'User is blocked because of too many credential errors'),
      'auth_failed',
    ],
    [
      'account locked (MariaDB 4151, misnamed by mysql2)',
      serverError('ER_BULK_PARSER_INCOMPLETE_ESCAPE_SEQUENCE', 4151, 'Access denied, this account is locked'),
      'auth_failed',
    ],
    [
      'auth method the client lacks (1251)',
      serverError('ER_NOT_SUPPORTED_AUTH_MODE', 1251, 'Client does not support authentication protocol requested by server'),
      'auth_failed',
    ],
    [
      'old password format refused (1275)',
      serverError(
        'ER_SERVER_IS_IN_SECURE_AUTH_MODE',
        1275,
        "Server is running in --secure-auth mode, but 'svc_fetch'@'%' has a password in the old format",
      ),
      'auth_failed',
    ],
    [
      "account's plugin not loaded on the server (1524)",
      serverError('ER_PLUGIN_IS_NOT_LOADED', 1524, "Plugin 'auth_pam' is not loaded"),
      'auth_failed',
    ],
    [
      "auth plugin mysql2 lacks (ed25519, PAM's dialog…)",
      nodeError('AUTH_SWITCH_PLUGIN_ERROR', 'Server requests authentication using unknown plugin client_ed25519.'),
      'auth_failed',
    ],
    [
      'server requires TLS (MySQL require_secure_transport, 3159)',
      serverError(
        'ER_SECURE_TRANSPORT_REQUIRED',
        3159,
        'Connections using insecure transport are prohibited while --require_secure_transport=ON.',
      ),
      'tls',
    ],
    ['unknown database (1049)', serverError('ER_BAD_DB_ERROR', 1049, "Unknown database 'ledger'"), 'database_not_found'],
    ...unreachableReasons(3306),
    ["mysql2's connectTimeout", nodeError('ETIMEDOUT', 'connect ETIMEDOUT'), 'timeout'],
    ['server without SSL', nodeError('HANDSHAKE_NO_SSL_SUPPORT', 'Server does not support secure connection'), 'tls'],
    ['handshake failure (mysql2 rewrites the code)', nodeError('HANDSHAKE_SSL_ERROR', 'self-signed certificate'), 'tls'],
    ['unknown CA', nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'), 'tls'],
    ['host name mismatch', nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), 'tls'],
    ['bad PEM', nodeError('ERR_OSSL_PEM_NO_START_LINE', 'error:0480006C:PEM routines::no start line'), 'tls'],
    ['unsupported SSL mode', new UnsupportedSslModeError('unsupported MySQL SSL mode "x"'), 'tls'],
    // Limits and throttles, not a refusal of the credentials or the account: the code is shown instead.
    ['too many connections (1040)', serverError('ER_CON_COUNT_ERROR', 1040, 'Too many connections'), 'unknown'],
    [
      'max_user_connections (1203)',
      serverError('ER_TOO_MANY_USER_CONNECTIONS', 1203, "User svc_fetch already has more than 'max_user_connections' active connections"),
      'unknown',
    ],
    [
      'resource limit (1226)',
      serverError('ER_USER_LIMIT_REACHED', 1226, "User 'svc_fetch' has exceeded the 'max_connections_per_hour' resource"),
      'unknown',
    ],
    [
      'host blocked after connection errors (1129)',
      serverError('ER_HOST_IS_BLOCKED', 1129, "Host '10.0.0.2' is blocked because of many connection errors"),
      'unknown',
    ],
    ['connection lost', nodeError('PROTOCOL_CONNECTION_LOST', 'Connection lost: The server closed the connection.'), 'unknown'],
    ['not even an error', 'boom', 'unknown'],
  ],
  messages: [
    [
      'auth_failed',
      serverError('ER_ACCESS_DENIED_ERROR', 1045, "Access denied for user 'svc_fetch'@'10.0.0.2' (using password: YES)"),
      /authentication failed/,
    ],
    [
      'auth_failed',
      serverError('ER_DBACCESS_DENIED_ERROR', 1044, "Access denied for user 'svc_fetch'@'%' to database 'ledger'"),
      /may not use database "ledger"/,
    ],
    [
      'auth_failed',
      serverError('ER_ACCESS_DENIED_NO_PASSWORD_ERROR', 1698, "Access denied for user 'svc_fetch'@'10.0.0.2'"),
      /authentication failed: the server rejected the credentials/,
    ],
    [
      'auth_failed',
      serverError('ER_PLUGIN_IS_NOT_LOADED', 1524, "Plugin 'auth_pam' is not loaded"),
      /authentication method cannot be used \(ER_PLUGIN_IS_NOT_LOADED\)/,
    ],
    [
      'auth_failed',
      nodeError('AUTH_SWITCH_PLUGIN_ERROR', 'Server requests authentication using unknown plugin dialog'),
      /authentication method cannot be used \(AUTH_SWITCH_PLUGIN_ERROR\)/,
    ],
    [
      'tls',
      serverError('ER_SECURE_TRANSPORT_REQUIRED', 3159, 'Connections using insecure transport are prohibited'),
      /accepts only TLS connections: use an SSL mode with TLS/,
    ],
    [
      'database_not_found',
      serverError('ER_BAD_DB_ERROR', 1049, "Unknown database 'ledger'"),
      /database "ledger" does not exist on db\.internal\.example:3307/,
    ],
    [
      'unreachable',
      nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:3307'),
      /cannot reach db\.internal\.example:3307 \(connection refused\)/,
    ],
    ['timeout', new ConnectTimeoutError('connect timeout'), /no answer from db\.internal\.example:3307 within 2500 ms/],
    ['tls', nodeError('HANDSHAKE_NO_SSL_SUPPORT', 'Server does not support secure connection'), /server does not support SSL/],
    ['tls', nodeError('HANDSHAKE_SSL_ERROR', 'self-signed certificate'), /TLS negotiation failed \(HANDSHAKE_SSL_ERROR\)/],
    [
      'unknown',
      serverError('ER_CON_COUNT_ERROR', 1040, "Too many connections for 'svc_fetch'"),
      /connection failed \(ER_CON_COUNT_ERROR\)/,
    ],
  ],
});
