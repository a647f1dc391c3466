import { describe, expect, it } from 'vitest';
import { FetCode } from '../errors/fet-code.js';
import { parseDatasourceUrl } from './datasource-url.js';
import { AUTH, CA_PEM, CERT_PEM, expectRefused, files, KEY_PEM } from './testing/datasource-url-fixtures.js';

const readFile = files({ 'ca.pem': CA_PEM, 'client.pem': CERT_PEM, 'client.key': KEY_PEM, 'client-and-key.pem': CERT_PEM + KEY_PEM });
const descriptorOf = (url: string) => parseDatasourceUrl(url, { readFile }).descriptor;
const sslOf = (url: string) => descriptorOf(url).ssl;

describe('PostgreSQL URLs (libpq)', () => {
  it('postgres:// and postgresql:// are both PostgreSQL', () => {
    expect(descriptorOf(`postgresql://${AUTH}h/sales`)).toEqual(descriptorOf(`postgres://${AUTH}h/sales`));
    expect(descriptorOf(`postgresql://${AUTH}h/sales`).type).toBe('POSTGRESQL');
  });

  it.each(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'])('sslmode=%s is the engine mode of that name', (mode) => {
    expect(sslOf(`postgres://${AUTH}h/sales?sslmode=${mode}`)).toEqual({ mode });
  });

  it('leaves the mode to the engine without sslmode', () => {
    expect(sslOf(`postgres://${AUTH}h/sales`)).toBeUndefined();
  });

  it('refuses an sslmode libpq does not have', () => {
    expect(expectRefused(`postgres://${AUTH}h/sales?sslmode=true`, 'sslmode must be one of disable, allow').code).toBe(
      FetCode.InvalidSslMode,
    );
  });

  it('reads sslrootcert, sslcert and sslkey as PEM', () => {
    const url = `postgres://${AUTH}h/sales?sslmode=verify-ca&sslrootcert=ca.pem&sslcert=client.pem&sslkey=client.key`;
    expect(sslOf(url)).toEqual({ mode: 'verify-ca', ca: CA_PEM, cert: CERT_PEM, key: KEY_PEM });
  });

  it('sslrootcert=system: the system roots, verify-full by default as in libpq, and nothing weaker', () => {
    expect(sslOf(`postgres://${AUTH}h/sales?sslrootcert=system`)).toEqual({ mode: 'verify-full' });
    expectRefused(`postgres://${AUTH}h/sales?sslrootcert=system&sslmode=require`, 'sslrootcert=system needs sslmode=verify-full');
  });

  it('schema, or pgjdbc currentSchema, is the schema', () => {
    expect(descriptorOf(`postgres://${AUTH}h/sales?schema=billing`).schemaName).toBe('billing');
    expect(descriptorOf(`postgres://${AUTH}h/sales?currentSchema=billing`).schemaName).toBe('billing');
  });

  it('takes application_name and connect_timeout and ignores them', () => {
    expect(descriptorOf(`postgres://${AUTH}h/sales?application_name=etl&connect_timeout=5`)).toEqual(
      descriptorOf(`postgres://${AUTH}h/sales`),
    );
  });

  it('refuses a multi-host URL', () => {
    expectRefused(`postgres://${AUTH}h1:5432,h2:5432/sales`, 'multi-host URL is not supported');
    expectRefused(`postgres://${AUTH}h1,h2/sales`, 'multi-host URL is not supported');
  });

  it('refuses a URL without a database', () => {
    expectRefused(`postgres://${AUTH}h:5432`, 'names no database; the form is postgres://user:password@host:port/dbname');
  });

  it('takes parameter names as written, as libpq does', () => {
    expectRefused(`postgres://${AUTH}h/sales?SSLMODE=require`, 'unknown parameter "SSLMODE"');
  });
});

describe('MySQL and MariaDB URLs', () => {
  it('mysql:// and mariadb:// are both MYSQL', () => {
    expect(descriptorOf(`mariadb://${AUTH}h:3307/shop`)).toEqual({ ...descriptorOf(`mysql://${AUTH}h:3307/shop`), type: 'MYSQL' });
  });

  it.each(['false', 'true', 'skip-verify', 'preferred'])('tls=%s (go-sql-driver) is the engine mode as it is', (mode) => {
    expect(sslOf(`mysql://${AUTH}h/shop?tls=${mode}`)).toEqual({ mode });
  });

  it.each([
    ['DISABLED', 'false'],
    ['PREFERRED', 'preferred'],
    ['REQUIRED', 'skip-verify'],
    ['VERIFY_IDENTITY', 'true'],
    ['verify_identity', 'true'],
  ])('ssl-mode=%s is %s', (sslMode, mode) => {
    expect(sslOf(`mysql://${AUTH}h/shop?ssl-mode=${sslMode}`)).toEqual({ mode });
    expect(sslOf(`mysql://${AUTH}h/shop?sslMode=${sslMode}`)).toEqual({ mode });
  });

  it('refuses ssl-mode=VERIFY_CA, saying what to use instead', () => {
    expectRefused(`mysql://${AUTH}h/shop?ssl-mode=VERIFY_CA`, 'use VERIFY_IDENTITY (chain and host name) or REQUIRED');
  });

  it('refuses tls and ssl-mode together', () => {
    expectRefused(`mysql://${AUTH}h/shop?tls=true&ssl-mode=REQUIRED`, 'give tls or ssl-mode, not both');
  });

  it('refuses a tls value that is not a mode (a registered TLS config name)', () => {
    expectRefused(`mysql://${AUTH}h/shop?tls=custom`, 'tls must be one of false, true, skip-verify, preferred');
  });

  it('reads ssl-ca, ssl-cert and ssl-key (or sslCa, sslCert, sslKey) as PEM', () => {
    const expected = { mode: 'true', ca: CA_PEM, cert: CERT_PEM, key: KEY_PEM };
    expect(sslOf(`mysql://${AUTH}h/shop?tls=true&ssl-ca=ca.pem&ssl-cert=client.pem&ssl-key=client.key`)).toEqual(expected);
    expect(sslOf(`mysql://${AUTH}h/shop?tls=true&sslCa=ca.pem&sslCert=client.pem&sslKey=client.key`)).toEqual(expected);
  });

  it('refuses a CA with REQUIRED, which checks no certificate (the MySQL client only warns)', () => {
    expectRefused(`mysql://${AUTH}h/shop?ssl-mode=REQUIRED&ssl-ca=ca.pem`, 'ssl-ca would be ignored', { readFile });
  });

  it('refuses a URL without a database', () => {
    expectRefused(`mysql://${AUTH}h`, 'names no database');
  });
});

describe('SQL Server URLs (go-mssqldb)', () => {
  const base = { type: 'SQL_SERVER', host: 'h', port: 1433, databaseName: 'erp', userName: 'alice' };

  it('takes the database from database=, as go-mssqldb does', () => {
    expect(descriptorOf(`sqlserver://${AUTH}h:1433?database=erp`)).toMatchObject(base);
    expect(descriptorOf(`mssql://${AUTH}h:1433?database=erp`)).toMatchObject(base);
  });

  it('refuses a path: go-mssqldb reads it as a named instance, not a database', () => {
    expectRefused(`sqlserver://${AUTH}h:1433/erp`, 'the path names an instance');
    expectRefused(`sqlserver://${AUTH}h/SQLEXPRESS?database=erp`, 'the path names an instance');
  });

  it.each([
    ['disable', 'disable'],
    ['false', 'false'],
    ['TRUE', 'true'],
    ['Strict', 'strict'],
  ])('encrypt=%s is mode %s', (encrypt, mode) => {
    expect(sslOf(`sqlserver://${AUTH}h?database=erp&encrypt=${encrypt}`)).toEqual({ mode });
  });

  it('refuses an encrypt value that is not a mode', () => {
    expectRefused(`sqlserver://${AUTH}h?database=erp&encrypt=mandatory`, 'encrypt must be one of disable, false, true, strict');
  });

  it('reads certificate= as the CA', () => {
    expect(sslOf(`sqlserver://${AUTH}h?database=erp&encrypt=true&certificate=ca.pem`)).toEqual({ mode: 'true', ca: CA_PEM });
  });

  it('refuses TrustServerCertificate=true, and takes =false', () => {
    expectRefused(`sqlserver://${AUTH}h?database=erp&encrypt=true&TrustServerCertificate=true`, 'give its CA with certificate=');
    expect(sslOf(`sqlserver://${AUTH}h?database=erp&encrypt=true&trustservercertificate=false`)).toEqual({ mode: 'true' });
  });

  it('refuses a named instance, as host\\instance or instance=', () => {
    expectRefused(`sqlserver://${AUTH}h\\SQLEXPRESS?database=erp`, 'named instance (host\\instance) is not supported: give the port');
    expectRefused(`sqlserver://${AUTH}h%5CSQLEXPRESS?database=erp`, 'named instance (host\\instance) is not supported');
    expectRefused(`sqlserver://${AUTH}h?database=erp&instance=SQLEXPRESS`, 'instance: a named instance is not supported');
  });

  it('takes parameter names ignoring case, as go-mssqldb does', () => {
    expect(descriptorOf(`sqlserver://${AUTH}h?Database=erp&ENCRYPT=true`)).toMatchObject({ databaseName: 'erp', ssl: { mode: 'true' } });
  });

  it('refuses a URL without a database', () => {
    expectRefused(`sqlserver://${AUTH}h:1433`, 'names no database');
  });
});

describe('Oracle URLs (go-ora)', () => {
  it('the path is the service name, and the database name too', () => {
    expect(descriptorOf(`oracle://${AUTH}h:1521/ORCLPDB1`)).toEqual({
      type: 'ORACLE',
      host: 'h',
      port: 1521,
      databaseName: 'ORCLPDB1',
      userName: 'alice',
      password: expect.any(String),
      metadata: { serviceName: 'ORCLPDB1' },
    });
  });

  it('refuses a URL without a service name', () => {
    expectRefused(`oracle://${AUTH}h:1521`, 'the form is oracle://user:password@host:port/service_name');
  });

  it.each(['disable', 'false', 'true', 'enable', 'verify', 'skip-verify'])('SSL=%s is the engine mode of that name', (mode) => {
    expect(sslOf(`oracle://${AUTH}h/ORCL?SSL=${mode.toUpperCase()}`)).toEqual({ mode });
  });

  it.each(['SSL%20VERIFY', 'SSL+VERIFY', 'ssl_verify', 'Ssl_Verify'])('%s=false with TLS on is skip-verify', (name) => {
    expect(sslOf(`oracle://${AUTH}h/ORCL?ssl=true&${name}=false`)).toEqual({ mode: 'skip-verify' });
  });

  it('refuses SSL VERIFY without TLS, and where it contradicts the mode', () => {
    expectRefused(`oracle://${AUTH}h/ORCL?SSL%20VERIFY=false`, 'SSL VERIFY applies only with SSL=true');
    expectRefused(`oracle://${AUTH}h/ORCL?SSL=verify&SSL%20VERIFY=false`, 'SSL=verify contradicts SSL VERIFY=false');
    expectRefused(`oracle://${AUTH}h/ORCL?SSL=skip-verify&SSL%20VERIFY=true`, 'SSL=skip-verify contradicts SSL VERIFY=true');
  });

  it('SSL SERVER CERT DN is metadata.sslServerCertDN, with SSL=verify only (the engine ignores it otherwise)', () => {
    const dn = encodeURIComponent('CN=db.example.com,O=Example');
    expect(descriptorOf(`oracle://${AUTH}h/ORCL?SSL=verify&ssl_server_cert_dn=${dn}`)).toMatchObject({
      ssl: { mode: 'verify' },
      metadata: { serviceName: 'ORCL', sslServerCertDN: 'CN=db.example.com,O=Example' },
    });
    expectRefused(`oracle://${AUTH}h/ORCL?SSL=true&SSL%20SERVER%20CERT%20DN=${dn}`, 'checked only with SSL=verify');
  });

  it('refuses a wallet: the engine takes PEM from a descriptor object', () => {
    expectRefused(`oracle://${AUTH}h/ORCL?SSL=true&WALLET=%2Fopt%2Fwallet`, 'WALLET: Oracle wallets are not supported: give the PEM');
  });

  it('lists its parameter names, saying how they may be written', () => {
    expectRefused(
      `oracle://${AUTH}h/ORCL?PREFETCH_ROWS=10`,
      'take SSL, SSL VERIFY, SSL SERVER CERT DN (names ignore case, with a space or _',
    );
  });
});

describe('MongoDB URLs (the connection string)', () => {
  it('reads the database from the path and authSource into metadata', () => {
    expect(parseDatasourceUrl(`mongodb://${AUTH}h:27018/app?authSource=admin`)).toEqual({
      srv: false,
      descriptor: {
        type: 'MONGODB',
        host: 'h',
        port: 27018,
        databaseName: 'app',
        userName: 'alice',
        password: expect.any(String),
        metadata: { authSource: 'admin' },
      },
    });
  });

  it('refuses a URL without a database, naming it', () => {
    expectRefused(
      `mongodb://${AUTH}h:27017/?authSource=admin`,
      'names no database; the form is mongodb://user:password@host:port/database',
    );
  });

  it('refuses a seed list: Fetcher connects directly to one member', () => {
    expectRefused(`mongodb://${AUTH}h1:27017,h2:27017/app?replicaSet=rs0`, 'seed list (h1,h2) is not supported');
  });

  it.each([
    ['tls=true', 'true'],
    ['ssl=true', 'true'],
    ['tls=true&ssl=true', 'true'],
    ['tls=false', 'disable'],
    ['ssl=FALSE', 'disable'],
    ['tls=true&tlsInsecure=true', 'insecure'],
    ['tlsAllowInvalidCertificates=true', 'insecure'],
    ['tls=true&tlsInsecure=false', 'true'],
  ])('%s is mode %s', (query, mode) => {
    expect(sslOf(`mongodb://${AUTH}h/app?${query}`)).toEqual({ mode });
  });

  it('leaves the mode to the engine without tls or ssl', () => {
    expect(sslOf(`mongodb://${AUTH}h/app`)).toBeUndefined();
  });

  it('refuses tls and ssl that disagree, and tlsInsecure with tlsAllowInvalidCertificates', () => {
    expectRefused(`mongodb://${AUTH}h/app?tls=true&ssl=false`, 'tls and ssl disagree');
    expectRefused(`mongodb://${AUTH}h/app?tlsInsecure=true&tlsAllowInvalidCertificates=true`, 'not both');
    expectRefused(`mongodb://${AUTH}h/app?tls=false&tlsInsecure=true`, 'tlsInsecure=true needs TLS');
  });

  it('reads tlsCAFile as the CA, and splits tlsCertificateKeyFile into certificate and key', () => {
    expect(sslOf(`mongodb://${AUTH}h/app?tls=true&tlsCAFile=ca.pem&tlsCertificateKeyFile=client-and-key.pem`)).toEqual({
      mode: 'true',
      ca: CA_PEM,
      cert: CERT_PEM,
      key: KEY_PEM,
    });
  });

  it('refuses a tlsCertificateKeyFile without its key', () => {
    expectRefused(`mongodb://${AUTH}h/app?tls=true&tlsCertificateKeyFile=client.pem`, 'must hold one PEM private key, it holds 0', {
      readFile,
    });
  });

  it('refuses tlsCAFile without tls=true (the driver would not use TLS)', () => {
    expectRefused(`mongodb://${AUTH}h/app?tlsCAFile=ca.pem`, 'tlsCAFile is used only over TLS: set tls=true', { readFile });
  });

  it('takes directConnection=true and refuses directConnection=false', () => {
    expect(descriptorOf(`mongodb://${AUTH}h/app?directConnection=true`)).toEqual(descriptorOf(`mongodb://${AUTH}h/app`));
    expectRefused(`mongodb://${AUTH}h/app?directConnection=false`, 'directConnection=false is not supported');
  });

  it('takes replicaSet, appName, retryWrites, w and readPreference and ignores them', () => {
    const url = `mongodb://${AUTH}h/app?replicaSet=rs0&appName=etl&retryWrites=false&w=majority&readPreference=secondaryPreferred`;
    expect(descriptorOf(url)).toEqual(descriptorOf(`mongodb://${AUTH}h/app`));
  });

  it('takes option names ignoring case, as the URI options spec says', () => {
    expect(descriptorOf(`mongodb://${AUTH}h/app?AUTHSOURCE=admin&TLS=true`)).toMatchObject({
      metadata: { authSource: 'admin' },
      ssl: { mode: 'true' },
    });
  });

  it('refuses an option Fetcher does not take, listing the ones it does', () => {
    expectRefused(
      `mongodb://${AUTH}h/app?authMechanism=MONGODB-X509`,
      'unknown parameter "authMechanism"; MongoDB URLs take authSource, tls',
    );
  });
});

describe('mongodb+srv:// URLs', () => {
  it('is an SRV name to resolve, with TLS on by default', () => {
    expect(parseDatasourceUrl(`mongodb+srv://${AUTH}cluster0.example.net/app`)).toEqual({
      srv: true,
      descriptor: expect.objectContaining({ type: 'MONGODB', host: 'cluster0.example.net', databaseName: 'app', ssl: { mode: 'true' } }),
    });
  });

  it('turns TLS off only when tls=false or ssl=false says so', () => {
    expect(sslOf(`mongodb+srv://${AUTH}cluster0.example.net/app?tls=false`)).toEqual({ mode: 'disable' });
    expect(sslOf(`mongodb+srv://${AUTH}cluster0.example.net/app?ssl=false`)).toEqual({ mode: 'disable' });
    expect(sslOf(`mongodb+srv://${AUTH}cluster0.example.net/app?tlsInsecure=true`)).toEqual({ mode: 'insecure' });
  });

  it('refuses a port, as the SRV spec does', () => {
    expectRefused(`mongodb+srv://${AUTH}cluster0.example.net:27017/app`, 'takes no port');
  });

  it('refuses directConnection=true, as the driver does with an SRV URI', () => {
    expectRefused(`mongodb+srv://${AUTH}cluster0.example.net/app?directConnection=true`, 'cannot be used with mongodb+srv://');
  });
});
