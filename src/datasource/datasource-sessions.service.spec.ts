import { describe, expect, it } from 'vitest';
import { ConnectorRegistry } from './connectors/connector-registry.js';
import type { ConnectorSession, EngineConnector, ResolvedDatasource } from './connectors/engine-connector.js';
import { DatasourceSessions } from './datasource-sessions.service.js';
import { DatasourceType } from './datasource-type.js';
import { HostGuard } from './ssrf/host-guard.service.js';

const datasource = (host: string, internal = false): ResolvedDatasource => ({
  id: 'x', configName: 'ds', type: DatasourceType.PostgreSQL, host, port: 5432, databaseName: 'd', schemaName: null,
  userName: 'u', password: 'p', ssl: { mode: null }, metadata: {}, productName: internal ? null : 'p', internal,
});

function sessions() {
  const opened: string[] = [];
  const connector: EngineConnector = {
    type: DatasourceType.PostgreSQL,
    defaultSchema: () => 'public',
    open: async (ds) => {
      opened.push(ds.host);
      return {} as ConnectorSession;
    },
  };
  const guard = new HostGuard({ allowPrivateHosts: false }, async () => ['93.184.216.34']);
  return { opened, sessions: new DatasourceSessions(new ConnectorRegistry([connector]), guard) };
}

describe('DatasourceSessions', () => {
  it('runs the SSRF guard before every connect, so the worker never dials a forbidden host', async () => {
    const { opened, sessions: subject } = sessions();
    await expect(subject.open(datasource('10.0.0.5'), { connectTimeoutMs: 1000 })).rejects.toMatchObject({ code: 'FET-0414' });
    await expect(subject.open(datasource('169.254.169.254'), { connectTimeoutMs: 1000 })).rejects.toMatchObject({ code: 'FET-0414' });
    expect(opened).toEqual([]);
    await subject.open(datasource('db.example.com'), { connectTimeoutMs: 1000 });
    expect(opened).toEqual(['db.example.com']);
  });

  it('exempts internal datasources, which operators declare themselves', async () => {
    const { opened, sessions: subject } = sessions();
    await subject.open(datasource('10.0.0.5', true), { connectTimeoutMs: 1000 });
    expect(opened).toEqual(['10.0.0.5']);
  });

  it('says clearly when an engine has no connector yet', async () => {
    const { sessions: subject } = sessions();
    await expect(subject.open({ ...datasource('db.example.com'), type: DatasourceType.Oracle }, { connectTimeoutMs: 1000 })).rejects.toMatchObject({
      name: 'DatasourceConnectError',
      message: 'engine ORACLE is not supported yet',
    });
  });
});
