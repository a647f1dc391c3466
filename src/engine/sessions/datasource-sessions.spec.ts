import { describe, expect, it } from 'vitest';
import { ConnectorRegistry } from '../connectors/shared/connector-registry.js';
import type { ConnectorSession, EngineConnector, OpenSessionOptions, ResolvedDatasource } from '../connectors/shared/engine-connector.js';
import { DatasourceSessions } from './datasource-sessions.js';
import { DatasourceType } from '../connectors/datasource-type.js';
import { DatasourceConnectError } from '../errors/datasource-errors.js';
import { EgressGuard } from '../egress/egress-guard.js';
import { postgresDatasource } from '../testing/postgres-datasource.js';

const datasource = (host: string, internal = false): ResolvedDatasource => postgresDatasource({ host, internal });

interface Opened {
  readonly host: string;
  readonly options: OpenSessionOptions;
}

function sessions(
  options: {
    answers?: Record<string, string[]>;
    allowPlaintextPassword?: boolean;
    onOpen?: (options: OpenSessionOptions) => Promise<void>;
  } = {},
) {
  const answers = options.answers ?? { 'db.example.com': ['93.184.216.34', '93.184.216.35'] };
  const opened: Opened[] = [];
  const lookups: string[] = [];
  const connector: EngineConnector = {
    type: DatasourceType.PostgreSQL,
    defaultSchema: () => 'public',
    open: async (ds, openOptions) => {
      opened.push({ host: ds.host, options: openOptions });
      await options.onOpen?.(openOptions);
      return {} as ConnectorSession;
    },
  };
  const guard = new EgressGuard({ allowPrivateHosts: false }, async (host) => {
    lookups.push(host);
    if (!(host in answers)) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return answers[host];
  });
  const subject = new DatasourceSessions(new ConnectorRegistry([connector]), guard, {
    allowPlaintextPassword: options.allowPlaintextPassword ?? false,
  });
  return { opened, lookups, subject };
}

describe('DatasourceSessions', () => {
  it('runs the SSRF guard before every connect, so the worker never dials a forbidden host', async () => {
    const { opened, subject } = sessions();
    await expect(subject.open(datasource('10.0.0.5'), { connectTimeoutMs: 1000 })).rejects.toMatchObject({ code: 'FET-0414' });
    await expect(subject.open(datasource('169.254.169.254'), { connectTimeoutMs: 1000 })).rejects.toMatchObject({ code: 'FET-0414' });
    expect(opened).toEqual([]);
    await subject.open(datasource('db.example.com'), { connectTimeoutMs: 1000 });
    expect(opened.map((o) => o.host)).toEqual(['db.example.com']);
  });

  it('resolves the host once per open and hands the connector the checked address, keeping the name', async () => {
    const { opened, lookups, subject } = sessions();
    await subject.open(datasource('DB.example.com'), { connectTimeoutMs: 1000 });
    await subject.open(datasource('db.example.com'), { connectTimeoutMs: 1000 });
    expect(lookups).toEqual(['db.example.com', 'db.example.com']);
    expect(opened[0].options.egress?.target).toEqual({ host: 'db.example.com', address: '93.184.216.34', family: 4 });
  });

  it('does not attempt a name that does not resolve, rather than letting the driver resolve it', async () => {
    const { opened, subject } = sessions();
    const error = await subject.open(datasource('gone.example.com'), { connectTimeoutMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatasourceConnectError);
    expect(error).toMatchObject({ reason: 'unreachable', configName: 'ds' });
    expect(opened).toEqual([]);
  });

  it('reports a refusal met during the connect (a redirect) instead of the driver error it caused', async () => {
    const { subject } = sessions({
      onOpen: async (options) => {
        try {
          options.egress?.checkAddress('127.0.0.5');
        } catch {
          // what a driver does with a socket that failed
        }
        throw new DatasourceConnectError('ds', 'unreachable', 'Cannot connect: socket closed');
      },
    });
    const error = (await subject.open(datasource('db.example.com'), { connectTimeoutMs: 1000 }).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: 'FET-0414' });
    expect(error.message).toContain('"ds"');
    expect(error.message).not.toContain('127.0.0.5');
  });

  it('keeps the abort reason when the open was aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    const { subject } = sessions({
      onOpen: async (options) => {
        expect(() => options.egress?.checkAddress('127.0.0.5')).toThrow(/address that is not allowed/);
        controller.abort(reason);
        throw reason;
      },
    });
    await expect(subject.open(datasource('db.example.com'), { connectTimeoutMs: 1000, signal: controller.signal })).rejects.toBe(reason);
  });

  it('exempts internal datasources, which operators declare themselves: no lookup, connect by name', async () => {
    const { opened, lookups, subject } = sessions();
    await subject.open(datasource('10.0.0.5', true), { connectTimeoutMs: 1000 });
    expect(opened.map((o) => o.host)).toEqual(['10.0.0.5']);
    expect(opened[0].options.egress).toBeUndefined();
    expect(lookups).toEqual([]);
  });

  it('passes ALLOW_PLAINTEXT_PASSWORD to every connector, internal datasources included', async () => {
    const strict = sessions({ allowPlaintextPassword: false });
    await strict.subject.open(datasource('db.example.com'), { connectTimeoutMs: 1000 });
    await strict.subject.open(datasource('10.0.0.5', true), { connectTimeoutMs: 1000 });
    expect(strict.opened.map((o) => o.options.allowPlaintextPassword)).toEqual([false, false]);
    const lax = sessions({ allowPlaintextPassword: true });
    await lax.subject.open(datasource('db.example.com'), { connectTimeoutMs: 1000 });
    expect(lax.opened[0].options.allowPlaintextPassword).toBe(true);
  });

  it('says clearly when an engine has no connector yet', async () => {
    const { subject } = sessions();
    await expect(
      subject.open({ ...datasource('db.example.com'), type: DatasourceType.Oracle }, { connectTimeoutMs: 1000 }),
    ).rejects.toMatchObject({
      name: 'DatasourceConnectError',
      message: 'engine ORACLE is not supported yet',
    });
  });
});
