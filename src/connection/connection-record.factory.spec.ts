import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { SequentialIdGenerator } from '../common/clock/testing/sequential-id-generator.js';
import type { AppConfig } from '../config/app-config.js';
import type { ConnectionRecord } from '../datasource/connection.entity.js';
import { CredentialCipher } from '../datasource/credential-cipher.service.js';
import { DatasourceType } from '../engine/connectors/datasource-type.js';
import { ConnectionRecordFactory } from './connection-record.factory.js';
import type { CreateConnectionDto } from './dto/create-connection.dto.js';
import type { UpdateConnectionDto } from './dto/update-connection.dto.js';

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----';
const CERT = '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----';
const KEY = '-----BEGIN PRIVATE KEY-----\nclient\n-----END PRIVATE KEY-----';

const ORACLE: CreateConnectionDto = {
  configName: 'ora_ledger',
  type: DatasourceType.Oracle,
  host: 'Ora.Example.com',
  port: 2484,
  databaseName: 'ledger',
  userName: 'reporter',
  password: 's3cret',
  ssl: { mode: 'verify', ca: CA, cert: CERT, key: KEY },
  metadata: { serviceName: 'LEDGER', sslServerCertDN: 'CN=ora.example.com,O=Example', team: 'finance' },
};

const MONGO: CreateConnectionDto = {
  configName: 'mongo_crm',
  type: DatasourceType.MongoDB,
  host: 'mongo.example.com',
  port: 27017,
  databaseName: 'crm',
  userName: 'reporter',
  password: 's3cret',
  ssl: { mode: 'true', ca: CA, cert: CERT, key: KEY },
  metadata: { authSource: 'admin' },
};

describe('ConnectionRecordFactory.merge: a stored credential goes only where it was entered', () => {
  let cipher: CredentialCipher;
  let factory: ConnectionRecordFactory;

  beforeEach(() => {
    const masterKey = randomBytes(32);
    cipher = new CredentialCipher({
      encryption: { masterKey, keyVersion: '1', generated: false, keyring: new Map([['1', masterKey]]) },
    } as Pick<AppConfig, 'encryption'>);
    factory = new ConnectionRecordFactory(cipher, new ManualClock('2026-03-01T10:00:00.000Z'), new SequentialIdGenerator());
  });

  const secrets = (record: ConnectionRecord) => ({
    password: cipher.decrypt(record.passwordEncrypted, record.encryptionKeyVersion),
    ca: cipher.decryptOptional(record.sslCaEncrypted, record.encryptionKeyVersion),
    cert: cipher.decryptOptional(record.sslCertEncrypted, record.encryptionKeyVersion),
    key: cipher.decryptOptional(record.sslKeyEncrypted, record.encryptionKeyVersion),
  });
  const merge = (created: CreateConnectionDto, patch: UpdateConnectionDto) =>
    factory.merge(factory.create('p', created.configName, created), patch);

  it.each<[string, UpdateConnectionDto, string[]]>([
    ['a new type', { type: DatasourceType.PostgreSQL, ssl: { mode: 'verify-full' } }, ['type', 'ssl.mode']],
    ['a new host', { host: 'other.example.com' }, ['host']],
    ['a new port', { port: 1522 }, ['port']],
    ['a new databaseName', { databaseName: 'audit' }, ['databaseName']],
    ['a new ssl.mode', { ssl: { mode: 'true' } }, ['ssl.mode']],
    ['a new ssl.ca', { ssl: { ca: `${CA}\nanother` } }, ['ssl.ca']],
    ['removing ssl.ca', { ssl: { ca: null } }, ['ssl.ca']],
    ['a new sslServerCertDN', { metadata: { ...ORACLE.metadata, sslServerCertDN: 'CN=evil.example.com' } }, ['metadata.sslServerCertDN']],
    ['removing sslServerCertDN', { metadata: { serviceName: 'LEDGER', team: 'finance' } }, ['metadata.sslServerCertDN']],
    ['a new serviceName', { metadata: { ...ORACLE.metadata, serviceName: 'OTHER' } }, ['metadata.serviceName']],
    ['metadata: null', { metadata: null }, ['metadata.serviceName', 'metadata.sslServerCertDN']],
  ])('%s clears the password, client certificate and key', (_, patch, changed) => {
    const { record, identity } = merge(ORACLE, patch);
    expect(identity).toEqual({ changed, cleared: ['password', 'ssl.cert', 'ssl.key'] });
    expect(record).toMatchObject({ passwordEncrypted: '', sslCertEncrypted: null, sslKeyEncrypted: null });
  });

  it("a new MongoDB authSource clears them too: it is the database the user's credentials are checked against", () => {
    const { record, identity } = merge(MONGO, { metadata: { authSource: 'crm' } });
    expect(identity).toEqual({ changed: ['metadata.authSource'], cleared: ['password', 'ssl.cert', 'ssl.key'] });
    expect(record).toMatchObject({ passwordEncrypted: '', sslCertEncrypted: null, sslKeyEncrypted: null });
  });

  it('keeps every secret when nothing deciding the server changes, values given again included', () => {
    for (const patch of [
      { metadata: { ...ORACLE.metadata, team: 'audit' } },
      { schema: 'accounting', userName: 'auditor', configName: 'ora_renamed' },
      { host: 'ora.example.COM.', port: 2484, databaseName: 'ledger', type: DatasourceType.Oracle },
      { ssl: { mode: 'verify', ca: CA, cert: CERT, key: KEY } },
      { metadata: { team: 'finance', sslServerCertDN: 'CN=ora.example.com,O=Example', serviceName: 'LEDGER' } },
    ] satisfies UpdateConnectionDto[]) {
      const { record, identity } = merge(ORACLE, patch);
      expect(identity, JSON.stringify(patch)).toBeNull();
      expect(secrets(record), JSON.stringify(patch)).toEqual({ password: 's3cret', ca: CA, cert: CERT, key: KEY });
    }
  });

  it('a new password with the move keeps the new password, but the old client certificate and key still go', () => {
    const { record, identity } = merge(ORACLE, { host: 'other.example.com', password: 'n3w' });
    expect(identity).toEqual({ changed: ['host'], cleared: ['ssl.cert', 'ssl.key'] });
    expect(secrets(record)).toEqual({ password: 'n3w', ca: CA, cert: undefined, key: undefined });
  });

  it('a move that brings every credential anew clears nothing, and says what changed', () => {
    const cert = `${CERT}\nnew`;
    const key = `${KEY}\nnew`;
    const { record, identity } = merge(ORACLE, { host: 'other.example.com', password: 'n3w', ssl: { cert, key } });
    expect(identity).toEqual({ changed: ['host', 'ssl.cert', 'ssl.key'], cleared: [] });
    expect(secrets(record)).toEqual({ password: 'n3w', ca: CA, cert, key });
  });

  it('a new client certificate alone drops the password and the old key (Oracle trusts the wallet it makes)', () => {
    const cert = `${CERT}\nnew`;
    const { record, identity } = merge(ORACLE, { ssl: { cert } });
    expect(identity).toEqual({ changed: ['ssl.cert'], cleared: ['password', 'ssl.key'] });
    expect(secrets(record)).toEqual({ password: '', ca: CA, cert, key: undefined });
  });

  it('ssl: null removes the SSL settings and, being a change of trust, the password', () => {
    const { record, identity } = merge(ORACLE, { ssl: null });
    expect(identity).toEqual({ changed: ['ssl.mode', 'ssl.ca', 'ssl.cert', 'ssl.key'], cleared: ['password'] });
    expect(secrets(record)).toEqual({ password: '', ca: undefined, cert: undefined, key: undefined });
  });

  it('lists only what was stored: a connection without a client certificate clears its password alone', () => {
    const { identity } = merge({ ...ORACLE, ssl: { mode: 'verify', ca: CA } }, { metadata: { serviceName: 'OTHER' } });
    expect(identity).toEqual({ changed: ['metadata.serviceName', 'metadata.sslServerCertDN'], cleared: ['password'] });
  });
});
