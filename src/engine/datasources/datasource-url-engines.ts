import { MONGODB_ENGINE } from '../connectors/mongodb/mongodb-engine.js';
import { MYSQL_ENGINE } from '../connectors/mysql/mysql-engine.js';
import { ORACLE_ENGINE } from '../connectors/oracle/oracle-engine.js';
import { POSTGRES_ENGINE } from '../connectors/postgres/postgres-engine.js';
import { SQLSERVER_ENGINE } from '../connectors/sqlserver/sqlserver-engine.js';
import { FetCode } from '../errors/fet-code.js';
import type { DatasourceDescriptor } from './datasource-descriptor.js';
import {
  certificatesIn,
  choiceOf,
  databaseOf,
  descriptorOf,
  type EngineUrl,
  flagOf,
  pemFiles,
  privateKeyIn,
  readPem,
  sslWith,
  textOf,
  type TlsRules,
  urlError,
  type UrlParts,
} from './datasource-url-parts.js';

/*
 * Each engine's URL, in the form its own tools write it (libpq, go-sql-driver and the MySQL
 * client, go-mssqldb, go-ora, the MongoDB connection string), read into a DatasourceDescriptor
 * with the engine's SSL modes. What a URL asks for that the engine cannot do is refused, never
 * dropped: a dropped CA or `TrustServerCertificate` would look honoured and not be.
 */

const INVALID_SSL = FetCode.InvalidSslMode;
const ignoringCase = (name: string): string => name.toLowerCase();

/** libpq's TLS parameters: which sslmodes check what, and which files they take. */
const POSTGRES_TLS: TlsRules = {
  verifyingMode: 'sslmode=verify-full',
  plainModes: ['disable'],
  uncheckedModes: ['allow', 'prefer'],
  params: { ca: 'sslrootcert', cert: 'sslcert', key: 'sslkey' },
};

/** libpq's URI: sslmode and the sslrootcert/sslcert/sslkey files; pgjdbc's currentSchema too. */
const POSTGRES_URL: EngineUrl = {
  label: 'PostgreSQL',
  oneHost: 'a multi-host URL is not supported: give one host',
  params: {
    names: {
      sslmode: [],
      sslrootcert: [],
      sslcert: [],
      sslkey: [],
      schema: ['currentSchema'],
      application_name: [],
      connect_timeout: [],
    },
    fold: (name) => name,
  },
  build(parts) {
    const params = parts.params;
    let mode: string | undefined = choiceOf(params, 'sslmode', POSTGRES_ENGINE.ssl.modes, INVALID_SSL);
    // libpq 16: `system` means the system's roots, and nothing weaker than verify-full with them.
    const systemRoots = params.get('sslrootcert') === 'system';
    if (systemRoots) {
      mode ??= 'verify-full';
      if (mode !== 'verify-full') throw urlError(`sslrootcert=system needs sslmode=verify-full, not ${mode}`, INVALID_SSL);
    }
    const { ca: _systemRoots, ...clientFiles } = POSTGRES_TLS.params;
    const pem = pemFiles(parts, systemRoots ? clientFiles : POSTGRES_TLS.params);
    return descriptorOf('POSTGRESQL', parts, {
      databaseName: databaseOf(parts, 'postgres://user:password@host:port/dbname'),
      schemaName: textOf(params, 'schema'),
      ssl: sslWith(mode, pem, POSTGRES_TLS),
    });
  },
};

/** go-sql-driver's and the MySQL client's TLS parameters: which modes check what, and which files they take. */
const MYSQL_TLS: TlsRules = {
  verifyingMode: 'tls=true or ssl-mode=VERIFY_IDENTITY',
  plainModes: ['false'],
  uncheckedModes: ['skip-verify', 'preferred'],
  params: { ca: 'ssl-ca', cert: 'ssl-cert', key: 'ssl-key' },
};

/** MySQL's own ssl-mode values → go-sql-driver's `tls` values, the engine's modes. */
const MYSQL_SSL_MODE = {
  DISABLED: 'false',
  PREFERRED: 'preferred',
  REQUIRED: 'skip-verify',
  VERIFY_CA: undefined,
  VERIFY_IDENTITY: 'true',
} as const;

type MySqlSslMode = keyof typeof MYSQL_SSL_MODE;

/** go-sql-driver's `tls`, or the MySQL client's URI options (ssl-mode, ssl-ca, …). */
const MYSQL_URL: EngineUrl = {
  label: 'MySQL',
  oneHost: 'a URL with several hosts is not supported: give one host',
  params: {
    names: { tls: [], 'ssl-mode': ['sslMode'], 'ssl-ca': ['sslCa'], 'ssl-cert': ['sslCert'], 'ssl-key': ['sslKey'] },
    fold: ignoringCase,
  },
  build(parts) {
    const params = parts.params;
    const tls = choiceOf(params, 'tls', MYSQL_ENGINE.ssl.modes, INVALID_SSL);
    const sslMode = choiceOf(params, 'ssl-mode', Object.keys(MYSQL_SSL_MODE) as MySqlSslMode[], INVALID_SSL);
    if (tls !== undefined && sslMode !== undefined) throw urlError('give tls or ssl-mode, not both', INVALID_SSL);
    if (sslMode === 'VERIFY_CA') {
      throw urlError(
        'ssl-mode=VERIFY_CA is not supported: use VERIFY_IDENTITY (chain and host name) or REQUIRED (no certificate check)',
        INVALID_SSL,
      );
    }
    const mode = tls ?? (sslMode === undefined ? undefined : MYSQL_SSL_MODE[sslMode]);
    return descriptorOf('MYSQL', parts, {
      databaseName: databaseOf(parts, 'mysql://user:password@host:port/database'),
      ssl: sslWith(mode, pemFiles(parts, MYSQL_TLS.params), MYSQL_TLS),
    });
  },
};

/** go-mssqldb's URL: parameter names ignore case; the database is `database=` (its path would be an instance name). */
const SQLSERVER_URL: EngineUrl = {
  label: 'SQL Server',
  oneHost: 'a URL with several hosts is not supported: give one host',
  backslashHost: 'a named instance (host\\instance) is not supported: give the port the instance listens on',
  params: {
    names: { database: [], encrypt: [], certificate: [], TrustServerCertificate: [] },
    fold: ignoringCase,
    refused: { instance: 'a named instance is not supported: give the port the instance listens on' },
  },
  build(parts) {
    const params = parts.params;
    if (flagOf(params, 'TrustServerCertificate') === true) {
      throw urlError(
        'TrustServerCertificate=true is not supported: Fetcher always verifies the certificate; give its CA with certificate=',
      );
    }
    // Not echoed: a path can hold a piece of a password whose `/` was not percent-encoded.
    if (parts.path !== '')
      throw urlError(
        'the path names an instance, which is not supported: give the database as database=<name> and the port the instance listens on',
      );
    const mode = choiceOf(params, 'encrypt', SQLSERVER_ENGINE.ssl.modes, INVALID_SSL);
    return descriptorOf('SQL_SERVER', parts, {
      databaseName: textOf(params, 'database') ?? databaseOf(parts, 'sqlserver://user:password@host:port?database=name'),
      ssl: sslWith(
        mode,
        { ca: readPem(parts, 'ca', 'certificate') },
        { verifyingMode: 'encrypt=true', plainModes: ['disable', 'false'], uncheckedModes: [], params: { ca: 'certificate' } },
      ),
    });
  },
};

const WALLET_REFUSED = 'Oracle wallets are not supported: give the PEM (ssl.ca, ssl.cert, ssl.key) in a descriptor object';
const TLS_ON = new Set(['true', 'enable', 'verify', 'skip-verify']);

/** go-ora's URL: upper-case names with spaces (`SSL VERIFY`), matched ignoring case, `_` for a space. */
const ORACLE_URL: EngineUrl = {
  label: 'Oracle',
  oneHost: 'a URL with several hosts is not supported: give one host',
  params: {
    names: { SSL: [], 'SSL VERIFY': [], 'SSL SERVER CERT DN': [] },
    fold: (name) => name.trim().toUpperCase().replace(/[ _]+/g, ' '),
    refused: { WALLET: WALLET_REFUSED, 'WALLET PASSWORD': WALLET_REFUSED },
    note: 'names ignore case, with a space or _ between words',
  },
  build(parts) {
    const params = parts.params;
    let mode: string | undefined = choiceOf(params, 'SSL', ORACLE_ENGINE.ssl.modes, INVALID_SSL);
    const verify = flagOf(params, 'SSL VERIFY');
    if (verify !== undefined) {
      if (mode === undefined || !TLS_ON.has(mode)) throw urlError('SSL VERIFY applies only with SSL=true', INVALID_SSL);
      if (mode === (verify ? 'skip-verify' : 'verify')) {
        throw urlError(`SSL=${mode} contradicts SSL VERIFY=${verify}`, INVALID_SSL);
      }
      if (!verify) mode = 'skip-verify';
    }
    const certDn = textOf(params, 'SSL SERVER CERT DN');
    // The engine matches the DN only where it checks the host (verify); elsewhere it would be ignored.
    if (certDn !== undefined && mode !== 'verify') throw urlError('SSL SERVER CERT DN is checked only with SSL=verify', INVALID_SSL);
    const serviceName = databaseOf(parts, 'oracle://user:password@host:port/service_name');
    return descriptorOf('ORACLE', parts, {
      databaseName: serviceName,
      ssl: mode === undefined ? undefined : { mode },
      metadata: { serviceName, sslServerCertDN: certDn },
    });
  },
};

/** The MongoDB connection string: option names ignore case (the URI options spec). */
const MONGODB_URL: EngineUrl = {
  label: 'MongoDB',
  oneHost: 'a seed list (h1,h2) is not supported: Fetcher connects directly to one member; give one host',
  params: {
    names: Object.fromEntries(
      [
        'authSource',
        'tls',
        'ssl',
        'tlsInsecure',
        'tlsAllowInvalidCertificates',
        'tlsCAFile',
        'tlsCertificateKeyFile',
        'directConnection',
        'replicaSet',
        'appName',
        'retryWrites',
        'w',
        'readPreference',
      ].map((name) => [name, []]),
    ),
    fold: ignoringCase,
  },
  build: mongoDescriptor,
};

function mongoDescriptor(parts: UrlParts): DatasourceDescriptor {
  const params = parts.params;
  if (parts.srv && parts.port !== undefined) throw urlError('a mongodb+srv:// URL takes no port (the SRV records give it)');
  const direct = flagOf(params, 'directConnection');
  if (direct === false) throw urlError('directConnection=false is not supported: Fetcher connects directly to the one host given');
  if (direct === true && parts.srv)
    throw urlError('directConnection=true cannot be used with mongodb+srv:// (the SRV records name the hosts)');
  const pem = { ca: readPem(parts, 'ca', 'tlsCAFile'), ...certificateKeyFile(parts) };
  return descriptorOf('MONGODB', parts, {
    databaseName: databaseOf(parts, 'mongodb://user:password@host:port/database'),
    ssl: sslWith(mongoSslMode(params, parts.srv), pem, {
      verifyingMode: 'tls=true',
      plainModes: ['disable'],
      uncheckedModes: ['insecure'],
      params: { ca: 'tlsCAFile', cert: 'tlsCertificateKeyFile', key: 'tlsCertificateKeyFile' },
    }),
    metadata: { authSource: textOf(params, 'authSource') },
  });
}

/** tls and ssl are one option under two names; SRV turns TLS on unless one of them says false. */
function mongoSslMode(params: ReadonlyMap<string, string>, srv: boolean): (typeof MONGODB_ENGINE.ssl.modes)[number] | undefined {
  const tls = flagOf(params, 'tls');
  const ssl = flagOf(params, 'ssl');
  if (tls !== undefined && ssl !== undefined && tls !== ssl) throw urlError('tls and ssl disagree', INVALID_SSL);
  const insecureFlags = ['tlsInsecure', 'tlsAllowInvalidCertificates'].filter((name) => params.has(name));
  if (insecureFlags.length > 1) throw urlError('give tlsInsecure or tlsAllowInvalidCertificates, not both', INVALID_SSL);
  const on = tls ?? ssl ?? (srv ? true : undefined);
  if (insecureFlags.length === 1 && flagOf(params, insecureFlags[0] as string) === true) {
    if (on === false) throw urlError(`${insecureFlags[0]}=true needs TLS, and tls=false turns it off`, INVALID_SSL);
    return 'insecure';
  }
  return on === undefined ? undefined : on ? 'true' : 'disable';
}

/** The driver's one file for the client certificate and its key, as the engine's two PEM members. */
function certificateKeyFile(parts: UrlParts): { cert?: string; key?: string } {
  const param = 'tlsCertificateKeyFile';
  const path = textOf(parts.params, param);
  if (path === undefined) return {};
  const text = parts.readFile(param, path);
  return { cert: certificatesIn(param, path, text), key: privateKeyIn(param, path, text) };
}

/** Every scheme a datasource URL may have → how its engine reads it. */
export const ENGINE_URLS: ReadonlyMap<string, EngineUrl> = new Map([
  ['postgres', POSTGRES_URL],
  ['postgresql', POSTGRES_URL],
  ['mysql', MYSQL_URL],
  ['mariadb', MYSQL_URL],
  ['sqlserver', SQLSERVER_URL],
  ['mssql', SQLSERVER_URL],
  ['oracle', ORACLE_URL],
  ['mongodb', MONGODB_URL],
  ['mongodb+srv', MONGODB_URL],
]);
