import { afterEach, describe, expect, it } from 'vitest';
import { DatasourceSessions } from '../../sessions/datasource-sessions.js';
import { DatasourceType } from '../datasource-type.js';
import { DatasourceConnectError } from '../../errors/datasource-errors.js';
import { startCountingListener, type CountingListener } from '../../egress/testing/counting-listener.js';
import { PolicyOverrideGuard } from '../../egress/testing/policy-override-guard.js';
import { ConnectorRegistry } from '../shared/connector-registry.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { OracleConnector } from './oracle.connector.js';
import { startRedirectingListener, type FakeTnsListener } from './testing/fake-tns-listener.js';
import { datasourceRecord } from '../../testing/datasource-records.js';

/**
 * node-oracledb thin follows a listener's REDIRECT by itself. Through DatasourceSessions, the
 * address it is redirected to is checked before it is dialled: 127.0.0.1 (the listener) is
 * declared public for the test, 127.0.0.5 (where the redirect points) stays loopback.
 */
const datasource = (port: number): ResolvedDatasource =>
  datasourceRecord(
    DatasourceType.Oracle,
    'ora_redirect',
    { host: '127.0.0.1', port, name: 'ignored', user: 'fetcher', password: 'not-a-real-secret' },
    { id: 'id-ora', metadata: { serviceName: 'FREEPDB1' } },
  );

const open = (publicAddresses: string[], port: number) =>
  new DatasourceSessions(new ConnectorRegistry([new OracleConnector()]), new PolicyOverrideGuard(publicAddresses), {
    allowPlaintextPassword: false,
  })
    .open(datasource(port), { connectTimeoutMs: 5_000 })
    .then(
      () => {
        throw new Error('expected the open to fail');
      },
      (error: unknown) => error as Error,
    );

describe('Oracle listener REDIRECT under the SSRF guard', () => {
  let member: CountingListener | undefined;
  let listener: FakeTnsListener | undefined;
  afterEach(async () => {
    await Promise.all([member?.close(), listener?.close()]);
  });

  it('refuses a redirect to a refused address: the open fails with FET-0414 and the target never sees a connection', async () => {
    member = await startCountingListener('127.0.0.5');
    listener = await startRedirectingListener({ host: '127.0.0.5', port: member.port });
    const error = await open(['127.0.0.1'], listener.port);
    expect(error).toMatchObject({ code: 'FET-0414' });
    expect(error.message).toContain('"ora_redirect"');
    expect(error.message).not.toContain('127.0.0.5');
    expect(listener.connectPackets).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(member.connections).toBe(0);
  });

  it('follows the same redirect when the target is allowed (the fake redirect is a real one)', async () => {
    member = await startCountingListener('127.0.0.5');
    listener = await startRedirectingListener({ host: '127.0.0.5', port: member.port });
    const error = await open(['127.0.0.1', '127.0.0.5'], listener.port);
    // The member hangs up at once: a plain connect failure, not a refusal.
    expect(error).toBeInstanceOf(DatasourceConnectError);
    expect(listener.connectPackets).toBe(1);
    expect(member.connections).toBe(1);
  });
});
