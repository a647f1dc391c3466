import { describe, expect, it } from 'vitest';
import { HostGuard } from './host-guard.service.js';

const names: Record<string, string[]> = {
  'db.example.com': ['93.184.216.34'],
  'sneaky.example.com': ['93.184.216.34', '127.0.0.1'],
  'internal.example.com': ['10.1.2.3'],
  'v6.example.com': ['2001:4860:4860::8888'],
};
const resolver = async (host: string) => {
  if (!(host in names)) throw new Error('ENOTFOUND');
  return names[host];
};
const guard = (allowPrivateHosts: boolean) => new HostGuard({ allowPrivateHosts }, resolver);

describe('HostGuard', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    'localhost',
    'LOCALHOST.',
    '10.0.0.5',
    '172.16.0.1',
    '192.168.1.10',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '[::1]',
    '::ffff:127.0.0.1',
    'fd12:3456::1',
    'sneaky.example.com',
    'internal.example.com',
  ])('refuses %s when private hosts are not allowed', async (host) => {
    await expect(guard(false).assertAllowed(host)).rejects.toMatchObject({ code: 'FET-0414', status: 400 });
  });

  it.each(['169.254.169.254', '169.254.1.1', 'metadata.google.internal', 'fe80::1', '::ffff:169.254.169.254', 'fd00:ec2::254'])(
    'refuses %s even when private hosts are allowed',
    async (host) => {
      await expect(guard(true).assertAllowed(host)).rejects.toMatchObject({ code: 'FET-0414' });
    },
  );

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
