import { DatasourceType } from '../datasource-type.js';
import { connectErrorDatasource, describeConnectErrors } from '../testing/connect-error-table.js';
import { ConnectTimeoutError } from '../shared/connect-failure.js';
import { classifyConnectError, OracleConfigError, toConnectError } from './oracle-connect-error.js';
import { UnsupportedSslModeError } from '../shared/tls-options.js';

/** Shaped like node-oracledb thin server errors: `ORA-nnnnn` code, errorNum, message with a help URL. */
const oraError = (errorNum: number, text: string) =>
  Object.assign(
    new Error(
      `ORA-${String(errorNum).padStart(5, '0')}: ${text}\nHelp: https://docs.oracle.com/error-help/db/ora-${String(errorNum).padStart(5, '0')}/`,
    ),
    {
      code: `ORA-${String(errorNum).padStart(5, '0')}`,
      errorNum,
      offset: 0,
    },
  );
/** Shaped like node-oracledb thin driver errors (NJS-5xx), as seen against real sockets. */
const njsError = (code: string, message: string) => Object.assign(new Error(`${code}: ${message}`), { code });

const REFUSED = njsError(
  'NJS-503',
  'connection to host 10.0.0.1 port 1522 could not be established. (CONNECTION_ID=vBMoO2G+KzOXHKAhpeqf1g==)\nconnect ECONNREFUSED 10.0.0.1:1522',
);

describeConnectErrors({
  engine: 'Oracle',
  datasource: connectErrorDatasource(DatasourceType.Oracle, {
    configName: 'ledger_ora',
    port: 1522,
    databaseName: 'ignored',
    ssl: { mode: 'verify' },
    metadata: { serviceName: 'FREEPDB1' },
  }),
  classify: classifyConnectError,
  toConnectError,
  hidden: ['CONNECTION_ID', 'DESCRIPTION', '10.0.0.1'],
  messageTitle: 'message names the datasource and the reason, without secrets or driver text',
  reasons: [
    ['invalid credential (ORA-01017)', oraError(1017, 'invalid credential or not authorized; logon denied'), 'auth_failed'],
    ['account locked (ORA-28000)', oraError(28000, 'The account is locked.'), 'auth_failed'],
    ['password expired (ORA-28001)', oraError(28001, 'the password has expired'), 'auth_failed'],
    ['no CREATE SESSION (ORA-01045)', oraError(1045, 'Login denied. User SVC_FETCH lacks CREATE SESSION privilege.'), 'auth_failed'],
    ['known by code only', { code: 'ORA-01017', message: 'x' }, 'auth_failed'],
    [
      'service unknown (NJS-518)',
      njsError(
        'NJS-518',
        'cannot connect to Oracle Database. Service "NOPE" is not registered with the listener at host 10.0.0.1 port 1522. (CONNECTION_ID=abc)',
      ),
      'database_not_found',
    ],
    [
      'SID unknown (NJS-519)',
      njsError('NJS-519', 'cannot connect to Oracle Database. SID "X" is not registered with the listener'),
      'database_not_found',
    ],
    [
      'service unknown (ORA-12514, thick style)',
      oraError(12514, 'Cannot connect to database. Service X is not registered with the listener'),
      'database_not_found',
    ],
    [
      'SID unknown (ORA-12505)',
      oraError(12505, 'Cannot connect to database. SID X is not registered with the listener'),
      'database_not_found',
    ],
    [
      'python-oracledb DPY-6001',
      { code: 'DPY-6001', message: 'DPY-6001: cannot connect to database (CONNECTION_ID=…). Service "X" is not registered' },
      'database_not_found',
    ],
    ['connection refused (NJS-503 carrying ECONNREFUSED)', REFUSED, 'unreachable'],
    [
      'host name unresolvable (NJS-530)',
      njsError('NJS-530', 'The host addresses or URLs provided by the connect string are incorrect or unresolvable in your network.'),
      'unreachable',
    ],
    [
      'server closed the connection (NJS-500 / NJS-521)',
      njsError(
        'NJS-500',
        'connection to Oracle Database was closed or broken\nNJS-521: connection to host 127.0.0.1 port 32987 received end-of-file on communication channel. (CONNECTION_ID=x)',
      ),
      'unreachable',
    ],
    [
      'listener refused (NJS-511)',
      njsError('NJS-511', 'connection to listener at host 10.0.0.1 port 1522 was refused. (CONNECTION_ID=x)\nCause: ORA-12516'),
      'unreachable',
    ],
    ['no listener (ORA-12541)', oraError(12541, 'Cannot connect. No listener at host 10.0.0.1 port 1522.'), 'unreachable'],
    [
      'python-oracledb DPY-6005 with ECONNREFUSED',
      { code: 'DPY-6005', message: 'DPY-6005: cannot connect to database (CONNECTION_ID=x).\n[Errno 111] Connection refused' },
      'unreachable',
    ],
    [
      'python-oracledb DPY-6005 that timed out',
      { code: 'DPY-6005', message: 'DPY-6005: cannot connect to database. timed out' },
      'timeout',
    ],
    ['a raw socket error', Object.assign(new Error('connect EHOSTUNREACH 10.0.0.1:1522'), { code: 'EHOSTUNREACH' }), 'unreachable'],
    [
      'driver connect timeout (NJS-510)',
      njsError(
        'NJS-510',
        'connection to host 127.0.0.1 port 33555 timed out. Request exceeded "connectTimeout" of 1 seconds. (CONNECTION_ID=x)',
      ),
      'timeout',
    ],
    ['our own deadline', new ConnectTimeoutError('connect timeout'), 'timeout'],
    [
      'NJS-503 whose socket timed out',
      njsError('NJS-503', 'connection to host h port 1 could not be established.\nconnect ETIMEDOUT 10.0.0.1:1522'),
      'timeout',
    ],
    ['Oracle Net connect timeout (ORA-12170)', oraError(12170, 'Cannot connect. TCP connect timeout of 60s'), 'timeout'],
    [
      'TLS handshake failure (NJS-506), unknown CA',
      njsError(
        'NJS-506',
        'connection to host 127.0.0.1 port 37421 encountered TLS handshake failure. (CONNECTION_ID=x)\nunable to verify the first certificate',
      ),
      'tls',
    ],
    [
      'TLS host name mismatch (NJS-508 inside NJS-506)',
      njsError(
        'NJS-506',
        'connection to host h port 1 encountered TLS handshake failure.\nNJS-508: TLS detected an invalid certificate. db.internal.example  not present in certificate',
      ),
      'tls',
    ],
    [
      'TLS DN mismatch',
      njsError('NJS-507', 'TLS detected an invalid certificate. Server DN in certificate does not match the specified DN'),
      'tls',
    ],
    [
      'bad wallet PEM (NJS-505)',
      njsError(
        'NJS-505',
        'unable to initiate TLS connection. Please check if wallet credentials are valid\nerror:1E08010C:DECODER routines::unsupported',
      ),
      'tls',
    ],
    ['certificate validation (ORA-29024)', oraError(29024, 'Certificate validation failure'), 'tls'],
    ['unsupported SSL mode', new UnsupportedSslModeError('unsupported Oracle SSL mode "x"'), 'tls'],
    [
      'missing service name',
      new OracleConfigError('database_not_found', 'metadata.serviceName is required for Oracle connections'),
      'database_not_found',
    ],
    ['database starting up (ORA-01033)', oraError(1033, 'ORACLE initialization or shutdown in progress'), 'unknown'],
    ['not even an error', 'boom', 'unknown'],
  ],
  messages: [
    ['auth_failed', oraError(1017, 'invalid credential or not authorized; logon denied'), /authentication failed: .* \(ORA-01017\)$/],
    [
      'database_not_found',
      njsError('NJS-518', 'Service "FREEPDB1" is not registered with the listener at host 10.0.0.1 port 1522. (CONNECTION_ID=abc)'),
      /service "FREEPDB1" is not known to the listener at db\.internal\.example:1522 \(NJS-518\)/,
    ],
    [
      'database_not_found',
      new OracleConfigError('database_not_found', 'metadata.serviceName is required for Oracle connections'),
      /: metadata\.serviceName is required for Oracle connections$/,
    ],
    ['unreachable', REFUSED, /cannot reach db\.internal\.example:1522 \(connection refused\)$/],
    [
      'unreachable',
      njsError('NJS-530', 'The host addresses or URLs provided by the connect string are incorrect or unresolvable in your network.'),
      /cannot reach db\.internal\.example:1522 \(host name not found\)$/,
    ],
    [
      'unreachable',
      njsError(
        'NJS-500',
        'connection to Oracle Database was closed or broken\nNJS-521: connection to host 10.0.0.1 port 1 received end-of-file',
      ),
      /closed the connection during the handshake \(NJS-500\)/,
    ],
    [
      'unreachable',
      njsError('NJS-511', 'connection to listener at host 10.0.0.1 port 1522 was refused. (CONNECTION_ID=x)\nCause: ORA-12516'),
      /cannot reach db\.internal\.example:1522 \(NJS-511\): listener answered ORA-12516$/,
    ],
    ['timeout', new ConnectTimeoutError('connect timeout'), /no answer from db\.internal\.example:1522 within 2500 ms$/],
    [
      'tls',
      njsError('NJS-506', 'TLS handshake failure.\nunable to verify the first certificate'),
      /TLS negotiation failed \(NJS-506\): the server certificate is not signed by a trusted CA$/,
    ],
    [
      'tls',
      njsError('NJS-506', 'TLS handshake failure.\nNJS-508: TLS detected an invalid certificate. 10.0.0.1  not present in certificate'),
      /the certificate does not name the host$/,
    ],
    ['tls', new UnsupportedSslModeError('unsupported Oracle SSL mode "x"'), /: unsupported SSL mode$/],
    ['unknown', oraError(1033, "ORACLE initialization or shutdown in progress for user 'SVC_FETCH'"), /connection failed \(ORA-01033\)$/],
  ],
});
