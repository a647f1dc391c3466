import { describe, expect, it, vi } from 'vitest';
import { DatasourceType } from '../datasource-type.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { connectDescriptor, connectOptions, connectOracle, connectTarget, fetchTypeHandler, SESSION_SETUP_SQL } from './oracle-client.js';
import { ConnectTimeoutError } from '../shared/connect-failure.js';
import { OracleConfigError } from './oracle-connect-error.js';
import { oracleDriver, type OracleConnection, type OracleDriver } from './oracle-driver.js';
import { tlsPlan } from './oracle-ssl.js';
import { datasourceRecord } from '../../testing/datasource-records.js';

const DS: ResolvedDatasource = datasourceRecord(
  DatasourceType.Oracle,
  'ledger_ora',
  { host: 'db.example', port: 1522, name: 'ignored', user: 'svc user', password: 'p@ss:w/rd?&=+ %()' },
  { id: 'id-1', metadata: { serviceName: 'FREEPDB1' } },
);

const target = (overrides: Partial<ResolvedDatasource>) => connectTarget({ ...DS, ...overrides });

describe('Oracle connect descriptor', () => {
  it('is built from the host, integer port and service name', () => {
    expect(connectDescriptor(target({}), 'TCP')).toBe(
      '(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=db.example)(PORT=1522))(CONNECT_DATA=(SERVICE_NAME=FREEPDB1)))',
    );
    expect(connectDescriptor(target({ host: '10.0.0.7', metadata: { serviceName: ' orclpdb1.example.com ' } }), 'TCPS')).toBe(
      '(DESCRIPTION=(ADDRESS=(PROTOCOL=TCPS)(HOST=10.0.0.7)(PORT=1522))(CONNECT_DATA=(SERVICE_NAME=orclpdb1.example.com)))',
    );
    expect(target({ host: '[::1]' }).host).toBe('::1');
    expect(target({ host: 'oracle_db' }).host).toBe('oracle_db');
    expect(target({ metadata: { serviceName: 'SYS$USERS' } }).serviceName).toBe('SYS$USERS');
  });

  it('requires metadata.serviceName, with a clear message', () => {
    for (const metadata of [{}, { serviceName: '' }, { serviceName: '   ' }, { serviceName: null }]) {
      expect(() => target({ metadata })).toThrow(
        new OracleConfigError('database_not_found', 'metadata.serviceName is required for Oracle connections'),
      );
    }
  });

  it.each<[string, Partial<ResolvedDatasource>, RegExp]>([
    [
      'a service name that would close the descriptor',
      { metadata: { serviceName: 'X)(SERVER=DEDICATED' } },
      /must be an Oracle service name/,
    ],
    ['a service name with a space', { metadata: { serviceName: 'a b' } }, /must be an Oracle service name/],
    ['a service name that is not text', { metadata: { serviceName: 42 } }, /must be an Oracle service name/],
    ['a host injecting another address', { host: 'h)(ADDRESS=(PROTOCOL=TCP)(HOST=evil)' }, /not a valid host name/],
    ['a host with =', { host: 'a=b' }, /not a valid host name/],
    ['a host with a space', { host: 'a b' }, /not a valid host name/],
    ['an empty host', { host: '' }, /not a valid host name/],
    ['a fractional port', { port: 1521.5 }, /port must be an integer/],
    ['a port out of range', { port: 70000 }, /port must be an integer/],
  ])('refuses %s instead of escaping it', (_label, overrides, message) => {
    expect(() => target(overrides)).toThrow(message);
  });
});

describe('node-oracledb connection options', () => {
  it('passes credentials structurally (never in a string) and converts timeouts to whole seconds', () => {
    const options = connectOptions(DS, target({}), tlsPlan({ mode: null }), 2500);
    expect(options).toEqual({
      user: 'svc user',
      password: 'p@ss:w/rd?&=+ %()',
      connectString: '(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=db.example)(PORT=1522))(CONNECT_DATA=(SERVICE_NAME=FREEPDB1)))',
      connectTimeout: 3,
      transportConnectTimeout: 3,
      expireTime: 1,
      connectionIdPrefix: 'fetcher',
    });
    expect(options.connectString).not.toContain('svc user');
    expect(options).not.toHaveProperty('callTimeout');
  });

  it('leaves the driver defaults for a non-positive timeout, and rounds small ones up to a second', () => {
    expect(connectOptions(DS, target({}), tlsPlan({ mode: null }), 0)).not.toHaveProperty('connectTimeout');
    expect(connectOptions(DS, target({}), tlsPlan({ mode: null }), 10).connectTimeout).toBe(1);
  });

  it('adds TLS options only for TCPS, with the wallet and DN settings of the plan', () => {
    const verify = connectOptions(DS, target({}), tlsPlan({ mode: 'verify' }, { sslServerCertDN: 'CN=db,O=Example' }), 1000);
    expect(verify.connectString).toContain('(PROTOCOL=TCPS)');
    expect(verify).toMatchObject({ sslServerDNMatch: true, sslServerCertDN: 'CN=db,O=Example' });
    expect(verify).not.toHaveProperty('walletContent');
    const enable = connectOptions(DS, target({}), tlsPlan({ mode: 'enable', ca: 'CA-PEM' }), 1000);
    expect(enable.sslServerDNMatch).toBe(false);
    expect(enable.walletContent).toContain('CA-PEM');
    expect(connectOptions(DS, target({}), tlsPlan({ mode: 'true' }), 1000, 'PROBED').walletContent).toBe('PROBED');
    const plain = connectOptions(DS, target({}), tlsPlan({ mode: 'disable', ca: 'CA-PEM' }), 1000);
    expect(plain).not.toHaveProperty('walletContent');
    expect(plain).not.toHaveProperty('sslServerDNMatch');
  });

  it('sets the session to UTC and the NLS settings the readers rely on, in one statement', () => {
    expect(SESSION_SETUP_SQL).toBe(
      "ALTER SESSION SET TIME_ZONE = '+00:00' NLS_CALENDAR = 'GREGORIAN' NLS_NUMERIC_CHARACTERS = '.,' NLS_COMP = 'BINARY' NLS_SORT = 'BINARY'",
    );
  });
});

describe('fetch types (real node-oracledb constants, thin mode)', () => {
  const driver = oracleDriver();
  const handler = fetchTypeHandler(driver);
  const meta = (dbType: unknown) => ({ name: 'C', dbType: dbType as OracleDriver['STRING'] });
  const types = driver as unknown as Record<string, OracleDriver['STRING']>;

  it('runs in thin mode', () => {
    expect(driver.thin).toBe(true);
  });

  it('fetches NUMBER, CLOB and NCLOB as strings and BLOB as Buffers; everything else natively', () => {
    expect(handler(meta(driver.DB_TYPE_NUMBER))).toEqual({ type: driver.STRING });
    expect(handler(meta(driver.DB_TYPE_CLOB))).toEqual({ type: driver.STRING });
    expect(handler(meta(driver.DB_TYPE_NCLOB))).toEqual({ type: driver.STRING });
    expect(handler(meta(driver.DB_TYPE_BLOB))).toEqual({ type: driver.BUFFER });
    for (const name of [
      'DB_TYPE_BINARY_DOUBLE',
      'DB_TYPE_BINARY_FLOAT',
      'DB_TYPE_VARCHAR',
      'DB_TYPE_RAW',
      'DB_TYPE_BOOLEAN',
      'DB_TYPE_INTERVAL_DS',
      'DB_TYPE_DATE',
    ]) {
      expect(handler(meta(types[name]))).toBeUndefined();
    }
    expect(handler({ name: 'C' })).toBeUndefined();
  });
});

describe('connecting with a deadline', () => {
  const connection = (): OracleConnection & { close: ReturnType<typeof vi.fn> } => ({
    execute: vi.fn(async () => ({})),
    break: vi.fn(async () => undefined),
    close: vi.fn(async () => undefined),
    isHealthy: () => true,
  });
  const driverWith = (getConnection: () => Promise<OracleConnection>) => ({ ...oracleDriver(), getConnection }) as OracleDriver;
  const OPTIONS = connectOptions(DS, target({}), tlsPlan({ mode: null }), 1000);

  it('runs the session setup on the new connection', async () => {
    const conn = connection();
    await expect(
      connectOracle(
        driverWith(async () => conn),
        OPTIONS,
        1000,
      ),
    ).resolves.toBe(conn);
    expect(conn.execute).toHaveBeenCalledWith(SESSION_SETUP_SQL);
  });

  it('fails with our timeout and closes a connection that arrives too late', async () => {
    const conn = connection();
    let arrive: (c: OracleConnection) => void = () => undefined;
    const pending = new Promise<OracleConnection>((resolve) => {
      arrive = resolve;
    });
    await expect(
      connectOracle(
        driverWith(() => pending),
        OPTIONS,
        30,
      ),
    ).rejects.toBeInstanceOf(ConnectTimeoutError);
    arrive(conn);
    await vi.waitFor(() => expect(conn.close).toHaveBeenCalled());
    expect(conn.execute).not.toHaveBeenCalled();
  });

  it('rejects with the abort reason at once', async () => {
    const controller = new AbortController();
    const attempt = connectOracle(
      driverWith(() => new Promise<never>(() => undefined)),
      OPTIONS,
      0,
      controller.signal,
    );
    controller.abort(new Error('job cancelled'));
    await expect(attempt).rejects.toThrow('job cancelled');
  });

  it('closes the connection when the session setup fails, and reports the failure', async () => {
    const conn = connection();
    conn.execute = vi.fn(async () => {
      throw Object.assign(new Error('ORA-02248: invalid option for ALTER SESSION'), { code: 'ORA-02248', errorNum: 2248 });
    });
    await expect(
      connectOracle(
        driverWith(async () => conn),
        OPTIONS,
        1000,
      ),
    ).rejects.toMatchObject({ code: 'ORA-02248' });
    expect(conn.close).toHaveBeenCalled();
  });
});
