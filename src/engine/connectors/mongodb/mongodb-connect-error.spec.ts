import { MongoNetworkError, MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { DatasourceType } from '../datasource-type.js';
import { connectErrorDatasource, describeConnectErrors, nodeError } from '../testing/connect-error-table.js';
import { ConnectTimeoutError } from '../shared/connect-failure.js';
import { InvalidMongoSettingError } from './mongodb-client.js';
import { classifyConnectError, toConnectError } from './mongodb-connect-error.js';
import { UnsupportedSslModeError } from '../shared/tls-options.js';

/** The driver wraps socket errors: message copied, node error as cause. */
const network = (cause: Error) => new MongoNetworkError(cause.message, { cause });

/**
 * What server selection throws: a TopologyDescription as `reason` (not exported by the driver,
 * so shaped here as it is: `type`, `servers` keyed by address, `error` = first server error)
 * and, when a server failed, that error as message and cause.
 */
function selectionError(
  serverErrors: (Error | undefined)[],
  type = 'Unknown',
  message = 'Server selection timed out after 5000 ms',
): MongoServerSelectionError {
  const servers = new Map(
    serverErrors.map((error, i) => [`10.0.0.${i + 1}:27017`, { address: `10.0.0.${i + 1}:27017`, type: 'Unknown', error }]),
  );
  const description = { type, servers, error: serverErrors.find((e) => e !== undefined) };
  return new MongoServerSelectionError(message, description as never);
}

/** The server's answer to a refused SCRAM conversation. */
const authFailed = () => new MongoServerError({ ok: 0, errmsg: 'Authentication failed.', code: 18, codeName: 'AuthenticationFailed' });

describeConnectErrors({
  engine: 'MongoDB',
  datasource: connectErrorDatasource(DatasourceType.MongoDB, {
    configName: 'docs_db',
    host: 'mongo.internal.example',
    port: 27018,
    databaseName: 'shop',
    ssl: { mode: 'true' },
    metadata: { authSource: 'users_db' },
  }),
  classify: classifyConnectError,
  toConnectError,
  reasons: [
    ['wrong password / unknown user (code 18)', authFailed(), 'auth_failed'],
    [
      'no right on the database (code 13)',
      new MongoServerError({
        ok: 0,
        errmsg: 'not authorized on shop to execute command { listCollections: 1 }',
        code: 13,
        codeName: 'Unauthorized',
      }),
      'auth_failed',
    ],
    [
      'UserNotFound (code 11)',
      new MongoServerError({ ok: 0, errmsg: 'Could not find user', code: 11, codeName: 'UserNotFound' }),
      'auth_failed',
    ],
    [
      'connection refused, via server selection',
      selectionError(
        [network(nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:27017'))],
        'Unknown',
        'connect ECONNREFUSED 10.0.0.1:27017',
      ),
      'unreachable',
    ],
    ['unknown host, via server selection', selectionError([network(nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND mongo'))]), 'unreachable'],
    ['no route to host', selectionError([network(nodeError('EHOSTUNREACH', 'connect EHOSTUNREACH'))]), 'unreachable'],
    [
      'a replica-set member from the set config does not resolve',
      selectionError([undefined, network(nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND mongo-2'))], 'ReplicaSetNoPrimary'),
      'unreachable',
    ],
    ['nothing answered within serverSelectionTimeoutMS', selectionError([undefined]), 'timeout'],
    ['no primary in the replica set', selectionError([undefined, undefined], 'ReplicaSetNoPrimary'), 'timeout'],
    [
      'socket timeout while connecting',
      selectionError([new MongoNetworkTimeoutError("Socket 'connect' timed out after 5000ms (connectTimeoutMS: 5000)")]),
      'timeout',
    ],
    ['OS TCP timeout', selectionError([network(nodeError('ETIMEDOUT', 'connect ETIMEDOUT'))]), 'timeout'],
    ['our own deadline', new ConnectTimeoutError('connect timeout'), 'timeout'],
    ['self-signed certificate', selectionError([network(nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))]), 'tls'],
    [
      'unknown CA',
      selectionError([network(nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'))]),
      'tls',
    ],
    [
      'host name mismatch',
      selectionError([network(nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"))]),
      'tls',
    ],
    [
      'TLS to a server without TLS',
      selectionError([network(nodeError('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'))]),
      'tls',
    ],
    ['TLS answered in plain text', selectionError([network(nodeError('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'))]), 'tls'],
    ['bad PEM', nodeError('ERR_OSSL_PEM_NO_START_LINE', 'error:0480006C:PEM routines::no start line'), 'tls'],
    ['unsupported SSL mode', new UnsupportedSslModeError('unsupported MongoDB SSL mode "x"'), 'tls'],
    ['a bad host in the record', new InvalidMongoSettingError('FETCHER_MONGO_HOST', 'invalid host name'), 'unreachable'],
    ['a bad database name', new InvalidMongoSettingError('FETCHER_MONGO_DATABASE', 'invalid database name'), 'database_not_found'],
    [
      'the server closes every connection (TLS required?)',
      selectionError([new MongoNetworkError('connection <monitor> to 10.0.0.1:27017 closed')]),
      'unknown',
    ],
    ['another server error', new MongoServerError({ ok: 0, errmsg: 'too many users', code: 9999, codeName: 'SomethingElse' }), 'unknown'],
    ['not even an error', 'boom', 'unknown'],
  ],
  messages: [
    ['auth_failed', authFailed(), /authentication failed: the server rejected the credentials \(authSource "users_db"\)/],
    [
      'auth_failed',
      new MongoServerError({ ok: 0, errmsg: 'not authorized on shop', code: 13, codeName: 'Unauthorized' }),
      /not authorized: the login may not read database "shop"/,
    ],
    [
      'unreachable',
      selectionError([network(nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:27018'))]),
      /cannot reach mongo\.internal\.example:27018 \(connection refused\)/,
    ],
    ['unreachable', new InvalidMongoSettingError('FETCHER_MONGO_HOST', 'invalid host name'), /invalid host or port \(invalid host name\)/],
    ['timeout', selectionError([undefined]), /no answer from mongo\.internal\.example:27018 within 2500 ms/],
    [
      'tls',
      selectionError([network(nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))]),
      /TLS negotiation failed \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
    ],
    ['tls', new UnsupportedSslModeError('unsupported MongoDB SSL mode "x"'), /unsupported MongoDB SSL mode "x"/],
    ['database_not_found', new InvalidMongoSettingError('FETCHER_MONGO_DATABASE', 'invalid database name'), /invalid database name/],
    [
      'unknown',
      selectionError([new MongoNetworkError('connection <monitor> to 10.0.0.1:27017 closed')]),
      /closed the connection \(does it require TLS\?\)/,
    ],
    [
      'unknown',
      new MongoServerError({ ok: 0, errmsg: 'user svc_fetch is locked', code: 9999, codeName: 'SomethingElse' }),
      /connection failed \(SomethingElse\)/,
    ],
  ],
});
