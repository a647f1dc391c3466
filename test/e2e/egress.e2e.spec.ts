import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressResolver } from '../../src/engine/egress/address-resolver.js';
import { ADDRESS_RESOLVER } from '../../src/datasource/engine.provider.js';
import { EgressGuard } from '../../src/engine/egress/egress-guard.js';
import { startCountingListener, type CountingListener } from '../../src/engine/egress/testing/counting-listener.js';
import { PolicyOverrideGuard } from '../../src/engine/egress/testing/policy-override-guard.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';

/**
 * DNS rebinding through the API: a name that answers a public address when the connection is
 * registered and 127.0.0.1 afterwards. Whatever the name answers at connect time is what is
 * checked and dialled, so the loopback listener behind it never sees a connection.
 */
describe('egress through the API: DNS rebinding', () => {
  const run = randomUUID().slice(0, 8);
  const name = `rebind-${run}.fetcher-egress.test`;
  const product = `egress-${run}`;
  const lookups: string[] = [];
  let listener: CountingListener;
  let fetcher: EmbeddedFetcher;

  const resolver: AddressResolver = async (host) => {
    if (host !== name) return [];
    lookups.push(host);
    return lookups.length === 1 ? ['93.184.216.34'] : ['127.0.0.1'];
  };

  beforeAll(async () => {
    listener = await startCountingListener('127.0.0.1');
    fetcher = await startEmbeddedFetcher({ ALLOW_PRIVATE_HOSTS: 'false' }, { overrides: [[ADDRESS_RESOLVER, resolver]] });
  });
  afterAll(async () => {
    await fetcher?.close();
    await listener?.close();
  });

  it('registers the name while it answers a public address, then never connects once it answers loopback', async () => {
    const configName = `pg_rebind_${run}`;
    const created = await fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', product)
      .send({ configName, type: 'POSTGRESQL', host: name, port: listener.port, databaseName: 'd', userName: 'u', password: 'p' });
    expect(created.status).toBe(201);
    expect(lookups).toHaveLength(1);

    const tested = await fetcher.http.post(`/v1/management/connections/${created.body.id}/test`);
    expect(tested.status).toBe(400);
    expect(tested.body.code).toBe('FET-0414');
    expect(JSON.stringify(tested.body)).not.toContain(name);
    // One lookup for the test: what was checked is what would have been dialled.
    expect(lookups).toHaveLength(2);

    const job = await fetcher.http
      .post('/v1/fetcher')
      .send({ dataRequest: { mappedFields: { [configName]: { accounts: ['id'] } } }, metadata: { source: product } });
    // Job creation tests every datasource it reads: refused there, before any job exists.
    expect(job.status).toBe(400);
    expect(job.body.code).toBe('FET-0414');
    expect(lookups).toHaveLength(3);

    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(listener.connections).toBe(0);
  });
});

/**
 * The other half of rebinding: the guard's answer and the system's answer differ. This host's
 * own name resolves to loopback through the system resolver; the guard's resolver answers
 * 127.0.0.2, declared public for the test. The driver must dial what the guard checked, never
 * resolve the name again by itself.
 */
describe('egress through the API: the driver never resolves the name itself', () => {
  const run = randomUUID().slice(0, 8);
  const name = hostname();
  let systemAnswer: CountingListener;
  let checkedAnswer: CountingListener;
  let fetcher: EmbeddedFetcher;

  beforeAll(async () => {
    const system = await lookup(name);
    systemAnswer = await startCountingListener(system.address);
    checkedAnswer = await startCountingListener('127.0.0.2', { port: systemAnswer.port });
    const guard = new PolicyOverrideGuard(['127.0.0.2'], async (host) => (host === name ? ['127.0.0.2'] : []));
    fetcher = await startEmbeddedFetcher({ ALLOW_PRIVATE_HOSTS: 'false' }, { overrides: [[EgressGuard, guard]] });
  });
  afterAll(async () => {
    await fetcher?.close();
    await Promise.all([systemAnswer?.close(), checkedAnswer?.close()]);
  });

  it('connects to the checked address, not to what the system resolver answers for the same name', async () => {
    expect(systemAnswer.host).not.toBe('127.0.0.2');
    const created = await fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', `egress-${run}`)
      .send(
        pgConnectionBody({ host: name, port: systemAnswer.port, name: 'd', user: 'u' }, { configName: `pg_pinned_${run}`, password: 'p' }),
      );
    expect(created.status).toBe(201);
    // The listener hangs up: the test fails, but it reached the checked address only.
    const tested = await fetcher.http.post(`/v1/management/connections/${created.body.id}/test`);
    expect(tested.status).toBe(502);
    expect(checkedAnswer.connections).toBeGreaterThan(0);
    expect(systemAnswer.connections).toBe(0);
  });
});
