import { describe, expect, it } from 'vitest';
import { DatasourceConnectError } from '../errors/datasource-errors.js';
import { EgressGuard } from './egress-guard.js';

const names: Record<string, string[]> = {
  'db.example.com': ['93.184.216.34'],
  'sneaky.example.com': ['93.184.216.34', '127.0.0.1'],
  'metadata-behind.example.com': ['93.184.216.34', '::ffff:a9fe:a9fe'],
  'internal.example.com': ['10.1.2.3'],
  'v6.example.com': ['2001:4860:4860::8888'],
  'empty.example.com': [],
};
const resolver = async (host: string) => {
  if (!(host in names)) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return names[host];
};
const guard = (allowPrivateHosts: boolean) => new EgressGuard({ allowPrivateHosts }, resolver);

/** A resolver that counts its calls. */
function counting(answers: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    return answers[host] ?? [];
  };
  return { calls, resolve };
}

describe('EgressGuard.assertAllowed (create and PATCH)', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    'localhost',
    'LOCALHOST.',
    'db.localhost',
    '10.0.0.5',
    '172.16.0.1',
    '192.168.1.10',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '[::1]',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    'fd12:3456::1',
    'sneaky.example.com',
    'internal.example.com',
  ])('refuses %s when private hosts are not allowed', async (host) => {
    await expect(guard(false).assertAllowed(host)).rejects.toMatchObject({ code: 'FET-0414', status: 400 });
  });

  it.each([
    '169.254.169.254',
    '169.254.1.1',
    'metadata.google.internal',
    'fe80::1',
    '::ffff:169.254.169.254',
    'fd00:ec2::254',
    'metadata-behind.example.com',
    '224.0.0.1',
    '192.0.2.1',
  ])('refuses %s even when private hosts are allowed', async (host) => {
    await expect(guard(true).assertAllowed(host)).rejects.toMatchObject({ code: 'FET-0414' });
  });

  it.each(['db.example.com', '93.184.216.34', 'v6.example.com', 'does-not-resolve.example'])('allows %s', async (host) => {
    await expect(guard(false).assertAllowed(host)).resolves.toBeUndefined();
  });

  it('allows loopback and private addresses when configured to', async () => {
    for (const host of ['127.0.0.1', 'localhost', '10.0.0.5', 'internal.example.com']) {
      await expect(guard(true).assertAllowed(host)).resolves.toBeUndefined();
    }
  });

  it('never echoes the host in the error', async () => {
    await expect(guard(false).assertAllowed('10.9.8.7')).rejects.toSatisfy((error: Error) => !error.message.includes('10.9.8.7'));
  });
});

describe('EgressGuard.resolveTarget (right before a connect)', () => {
  it('resolves once and pins the first address, keeping the name for TLS', async () => {
    const { calls, resolve } = counting({ 'db.example.com': ['93.184.216.34', '2606:4700::1'] });
    const subject = new EgressGuard({ allowPrivateHosts: false }, resolve);
    await expect(subject.resolveTarget('DB.Example.com.', 'ds')).resolves.toEqual({
      host: 'db.example.com',
      address: '93.184.216.34',
      family: 4,
    });
    expect(calls).toEqual(['db.example.com']);
  });

  it('does not resolve an IP literal', async () => {
    const { calls, resolve } = counting({});
    const subject = new EgressGuard({ allowPrivateHosts: false }, resolve);
    await expect(subject.resolveTarget('[2606:4700::1]', 'ds')).resolves.toEqual({
      host: '2606:4700::1',
      address: '2606:4700::1',
      family: 6,
    });
    expect(calls).toEqual([]);
  });

  it('refuses a name whose answers mix public and refused addresses, whichever comes first', async () => {
    for (const answer of [
      ['93.184.216.34', '127.0.0.1'],
      ['127.0.0.1', '93.184.216.34'],
      ['93.184.216.34', '169.254.169.254'],
    ]) {
      const subject = new EgressGuard({ allowPrivateHosts: false }, async () => answer);
      const error = (await subject.resolveTarget('mixed.example.com', 'ds').catch((e: unknown) => e)) as Error;
      expect(error).toMatchObject({ code: 'FET-0414' });
      expect(error.message).not.toContain('mixed.example.com');
    }
  });

  it('refuses metadata even when private hosts are allowed', async () => {
    const subject = new EgressGuard({ allowPrivateHosts: true }, async () => ['10.0.0.1', '169.254.169.254']);
    await expect(subject.resolveTarget('mixed.example.com', 'ds')).rejects.toMatchObject({ code: 'FET-0414' });
  });

  it.each(['does-not-resolve.example', 'empty.example.com'])(
    'answers unreachable for %s instead of letting the driver resolve it',
    async (host) => {
      const error = await guard(true)
        .resolveTarget(host, 'billing')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatasourceConnectError);
      expect(error).toMatchObject({ configName: 'billing', reason: 'unreachable' });
      expect((error as Error).message).toMatch(/^Cannot connect to datasource "billing": its host name does not resolve/);
    },
  );

  it('names the DNS failure code when there is one', async () => {
    await expect(guard(true).resolveTarget('does-not-resolve.example', 'billing')).rejects.toThrow(
      'does not resolve to any address (ENOTFOUND)',
    );
  });
});

describe('EgressGuard.checkAddress and the per-open egress policy', () => {
  it('checks IP literals synchronously and refuses anything else', () => {
    const subject = guard(false);
    expect(() => subject.checkAddress('93.184.216.34')).not.toThrow();
    expect(() => subject.checkAddress('127.0.0.5')).toThrow(expect.objectContaining({ code: 'FET-0414' }));
    expect(() => subject.checkAddress('db.example.com')).toThrow(expect.objectContaining({ code: 'FET-0414' }));
  });

  it('answers the pinned target for the registered name without a new lookup, and resolves other names once', async () => {
    const { calls, resolve } = counting({ 'db.example.com': ['93.184.216.34'], 'replica.example.com': ['93.184.216.35'] });
    const subject = new EgressGuard({ allowPrivateHosts: false }, resolve);
    const target = await subject.resolveTarget('db.example.com', 'ds');
    const egress = subject.egressFor(target, 'ds');
    await expect(egress.resolve('DB.example.com')).resolves.toBe(target);
    await expect(egress.resolve('replica.example.com')).resolves.toMatchObject({ address: '93.184.216.35' });
    expect(calls).toEqual(['db.example.com', 'replica.example.com']);
    expect(egress.failure).toBeUndefined();
  });

  it('remembers the first refusal, naming the datasource and not the address', async () => {
    const subject = new EgressGuard({ allowPrivateHosts: false }, async () => ['10.0.0.7']);
    const egress = subject.egressFor({ host: 'db.example.com', address: '93.184.216.34', family: 4 }, 'billing');
    expect(() => egress.checkAddress('127.0.0.5')).toThrow(/address that is not allowed/);
    await expect(egress.resolve('routed.example.com')).rejects.toMatchObject({ code: 'FET-0414' });
    expect(egress.failure).toMatchObject({ code: 'FET-0414', message: expect.stringContaining('"billing"') });
    expect(egress.failure?.message).not.toMatch(/127\.0\.0\.5|10\.0\.0\.7|routed/);
  });
});
