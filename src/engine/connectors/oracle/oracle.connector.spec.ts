import { describe, expect, it } from 'vitest';
import { DatasourceType } from '../datasource-type.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { loginSchema, OracleConnector } from './oracle.connector.js';
import { datasourceRecord } from '../../testing/datasource-records.js';

const DS: ResolvedDatasource = datasourceRecord(
  DatasourceType.Oracle,
  'ledger_ora',
  { host: '127.0.0.1', port: 1, name: 'ignored', user: 'fetcher', password: 'secret' },
  { id: 'id-1', metadata: { serviceName: 'FREEPDB1' } },
);

describe('OracleConnector', () => {
  const connector = new OracleConnector();

  it('is the ORACLE engine', () => {
    expect(connector.type).toBe(DatasourceType.Oracle);
  });

  it('reads unqualified names from the login user’s schema, upper-cased, or from the record’s schema', () => {
    expect(connector.defaultSchema(DS)).toBe('FETCHER');
    expect(connector.defaultSchema({ ...DS, userName: ' App_User ' })).toBe('APP_USER');
    expect(connector.defaultSchema({ ...DS, schemaName: 'ledger' })).toBe('LEDGER');
    expect(connector.defaultSchema({ ...DS, schemaName: '' })).toBe('FETCHER');
  });

  it('uses the client user of a proxy login as the schema', () => {
    expect(loginSchema('gateway[reporting]')).toBe('REPORTING');
    expect(loginSchema('plain')).toBe('PLAIN');
    expect(loginSchema('odd[')).toBe('ODD[');
  });

  it('refuses a record without metadata.serviceName before connecting, with a classified, safe error', async () => {
    await expect(connector.open({ ...DS, metadata: {} }, { connectTimeoutMs: 1000 })).rejects.toMatchObject({
      name: 'DatasourceConnectError',
      reason: 'database_not_found',
      configName: 'ledger_ora',
      message: 'Cannot connect to Oracle datasource "ledger_ora": metadata.serviceName is required for Oracle connections',
    });
  });

  it('refuses an unknown SSL mode and a host that would break the descriptor', async () => {
    await expect(connector.open({ ...DS, ssl: { mode: 'require' } }, { connectTimeoutMs: 1000 })).rejects.toMatchObject({
      reason: 'tls',
      message: expect.stringMatching(/unsupported SSL mode$/),
    });
    await expect(connector.open({ ...DS, host: 'x)(HOST=evil' }, { connectTimeoutMs: 1000 })).rejects.toMatchObject({
      reason: 'unreachable',
      message: expect.stringMatching(/not a valid host name/),
    });
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(connector.open(DS, { connectTimeoutMs: 1000, signal: controller.signal })).rejects.toThrow('cancelled');
  });
});
