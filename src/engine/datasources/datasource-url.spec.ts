import { describe, expect, it } from 'vitest';
import { FetCode } from '../errors/fet-code.js';
import { parseDatasourceUrl, redactUrl } from './datasource-url.js';
import { AUTH, CA_PEM, CERT_PEM, expectRefused, files, KEY_PEM, PASSWORD } from './testing/datasource-url-fixtures.js';

describe('parseDatasourceUrl: what every URL shares', () => {
  it('reads user, password, host, port and database', () => {
    expect(parseDatasourceUrl(`postgres://${AUTH}db.example.com:6432/sales`)).toEqual({
      srv: false,
      descriptor: { type: 'POSTGRESQL', host: 'db.example.com', port: 6432, databaseName: 'sales', userName: 'alice', password: PASSWORD },
    });
  });

  it('leaves the port, the user and the password out when the URL has none', () => {
    expect(parseDatasourceUrl('postgres://db.example.com/sales').descriptor).toEqual({
      type: 'POSTGRESQL',
      host: 'db.example.com',
      databaseName: 'sales',
    });
  });

  it('percent-decodes the user name, the password and the database', () => {
    const { descriptor } = parseDatasourceUrl('mysql://app%40corp:p%3A%2F%40%23%3F%25w@h/my%20db');
    expect(descriptor).toMatchObject({ userName: 'app@corp', password: 'p:/@#?%w', databaseName: 'my db' });
  });

  it('takes an IPv6 host without its brackets', () => {
    expect(parseDatasourceUrl(`postgres://${AUTH}[::1]:5433/sales`).descriptor).toMatchObject({ host: '::1', port: 5433 });
    expect(parseDatasourceUrl('postgres://[2001:db8::7]/sales').descriptor.host).toBe('2001:db8::7');
  });

  it('reads the scheme ignoring case and blanks around the URL', () => {
    expect(parseDatasourceUrl('  PostgreSQL://h/sales ').descriptor.type).toBe('POSTGRESQL');
  });

  it('takes an international host name as its ASCII (punycode) form', () => {
    expect(parseDatasourceUrl('postgres://bücher.example/sales').descriptor.host).toBe('xn--bcher-kva.example');
  });

  it('refuses a scheme it does not know, listing the accepted ones', () => {
    const error = expectRefused(`http://${AUTH}h/sales`, 'scheme "http" is not accepted');
    for (const scheme of ['postgres', 'postgresql', 'mysql', 'mariadb', 'sqlserver', 'mssql', 'oracle', 'mongodb', 'mongodb+srv']) {
      expect(error.message).toContain(`${scheme}://`);
    }
  });

  it('refuses a string that is not a URL', () => {
    expectRefused(`alice:${PASSWORD}@h/sales`, 'the URL has no scheme');
  });

  it('refuses a URL without a host', () => {
    expectRefused(`postgres:///sales?x=${PASSWORD}`, 'the URL has no host');
  });

  it('refuses a URL that does not parse, without showing it', () => {
    expectRefused(`postgres://${AUTH}h:54x32/sales`, 'does not parse');
  });

  it('refuses port 0', () => {
    expectRefused(`postgres://${AUTH}h:0/sales`, 'port must be from 1 to 65535');
  });

  it('refuses a host that is not a host name', () => {
    expectRefused(`postgres://${AUTH}h%20st/sales`, 'host must be a host name');
  });

  it('refuses a Unix-domain socket path as the host', () => {
    expectRefused(`postgres://${AUTH}%2Fvar%2Frun%2Fpostgresql/sales`, 'Unix-domain socket is not supported');
  });

  it('refuses a fragment, which is mostly an unencoded # in a password', () => {
    expectRefused(`postgres://alice:${PASSWORD}#x@h/sales`, 'percent-encode it as %23');
  });

  it('refuses a path of more than one segment without showing it', () => {
    // The unencoded `/` after this password ends the authority early.
    const error = expectRefused(`postgres://alice:${PASSWORD}/tail@h/sales`, 'does not parse');
    expect(error.message).not.toContain('tail');
    expectRefused(`postgres://${AUTH}h/sales/more`, 'the path must be one name');
  });

  it('refuses an unknown parameter, naming it and listing the accepted ones', () => {
    expectRefused(`postgres://${AUTH}h/sales?sslmod=require`, 'unknown parameter "sslmod"; PostgreSQL URLs take sslmode, sslrootcert');
  });

  it('does not show a parameter name that cannot be one', () => {
    const error = expectRefused(`postgres://${AUTH}h/sales?%3Cb%3E=1`, 'a parameter with an unexpected name');
    expect(error.message).toContain('sslmode');
  });

  it('refuses a query that holds a piece of a password whose ? was not percent-encoded', () => {
    expectRefused(`postgres://alice:5432?${PASSWORD}@h/sales`, 'a parameter name holds @');
  });

  it('refuses a parameter given twice, also under two of its spellings', () => {
    expectRefused(`postgres://${AUTH}h/sales?sslmode=require&sslmode=disable`, 'parameter sslmode is given more than once');
    expectRefused(`postgres://${AUTH}h/sales?schema=a&currentSchema=b`, 'parameter schema is given more than once');
  });

  it('withholds the details of a refusal that would show the password', () => {
    expectRefused(`postgres://alice:${PASSWORD}@h/sales?sslmode=${encodeURIComponent(PASSWORD)}`, 'the details are withheld');
  });

  it('says FET-0413 for an SSL mode, FET-0001 for the rest', () => {
    expect(expectRefused(`postgres://${AUTH}h/sales?sslmode=on`, 'sslmode must be one of').code).toBe(FetCode.InvalidSslMode);
    expect(expectRefused(`postgres://${AUTH}h/sales?x=1`, 'unknown parameter').code).toBe(FetCode.BadRequest);
  });
});

describe('parseDatasourceUrl: TLS files', () => {
  const readFile = files({ 'certs/ca.pem': CA_PEM, 'certs/client.pem': CERT_PEM, 'certs/client.key': KEY_PEM });

  it('reads the files through readFile, with the path as written', () => {
    const url = `postgres://${AUTH}h/sales?sslmode=verify-full&sslrootcert=certs/ca.pem&sslcert=certs/client.pem&sslkey=certs/client.key`;
    expect(parseDatasourceUrl(url, { readFile }).descriptor.ssl).toEqual({ mode: 'verify-full', ca: CA_PEM, cert: CERT_PEM, key: KEY_PEM });
  });

  it('reads from the file system by default', () => {
    const error = expectRefused(`postgres://${AUTH}h/sales?sslmode=verify-full&sslrootcert=no/such/ca.pem`, 'sslrootcert');
    expect(error.message).toBe('datasource URL: sslrootcert: cannot read "no/such/ca.pem" (ENOENT)');
  });

  it('names the parameter and the path of a file it cannot read, never its contents', () => {
    const failing = (): string => {
      throw Object.assign(new Error(`EACCES: permission denied, open ${CA_PEM}`), { code: 'EACCES' });
    };
    const error = expectRefused(`postgres://${AUTH}h/sales?sslmode=verify-full&sslrootcert=/etc/ca.pem`, 'cannot read', {
      readFile: failing,
    });
    expect(error.fields).toEqual({ url: 'sslrootcert: cannot read "/etc/ca.pem" (EACCES)' });
  });

  it('refuses a CA file that holds no PEM certificate', () => {
    const url = `postgres://${AUTH}h/sales?sslmode=verify-full&sslrootcert=ca.der`;
    expectRefused(url, 'sslrootcert: "ca.der" holds no PEM certificate', { readFile: files({ 'ca.der': '0\x82\x01' }) });
  });

  it('refuses an encrypted private key', () => {
    const encrypted = '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIE\n-----END ENCRYPTED PRIVATE KEY-----\n';
    const url = `postgres://${AUTH}h/sales?sslmode=require&sslcert=c.pem&sslkey=k.pem`;
    expectRefused(url, 'sslkey: the key in "k.pem" is encrypted', { readFile: files({ 'c.pem': CERT_PEM, 'k.pem': encrypted }) });
  });

  it('refuses TLS files without TLS, which the engine would ignore', () => {
    expectRefused(`postgres://${AUTH}h/sales?sslrootcert=certs/ca.pem`, 'sslrootcert is used only over TLS: set sslmode=verify-full', {
      readFile,
    });
    expectRefused(`postgres://${AUTH}h/sales?sslmode=disable&sslrootcert=certs/ca.pem`, 'used only over TLS', { readFile });
  });

  it('refuses a CA under a mode that checks no certificate', () => {
    expectRefused(`postgres://${AUTH}h/sales?sslmode=prefer&sslrootcert=certs/ca.pem`, 'sslrootcert would be ignored: mode prefer', {
      readFile,
    });
  });

  it('refuses a client certificate without its key', () => {
    expectRefused(`postgres://${AUTH}h/sales?sslmode=require&sslcert=certs/client.pem`, 'sslcert and sslkey go together', { readFile });
  });
});

describe('redactUrl', () => {
  it('replaces the password with ***, keeping the rest as written', () => {
    expect(redactUrl(`postgres://alice:${encodeURIComponent(PASSWORD)}@Db.Example.com:5432/sales?sslmode=require`)).toBe(
      'postgres://alice:***@Db.Example.com:5432/sales?sslmode=require',
    );
  });

  it('leaves a URL without a password as it is', () => {
    for (const url of ['postgres://alice@h/sales', 'postgres://h/sales', 'postgres://alice:@h/sales', 'mongodb://h/db?appName=a:b@c']) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('leaves a text that is not a URL as it is', () => {
    expect(redactUrl('not a url')).toBe('not a url');
  });

  it('redacts a URL that does not parse as far as it looks like one, an unencoded / or # in the password included', () => {
    expect(redactUrl('postgres://alice:se/cr#et@h1:5432,h2:5432/sales')).toBe('postgres://alice:***@h1:5432,h2:5432/sales');
  });
});
