import { describe, expect, it } from 'vitest';
import { SequentialIdGenerator } from '../common/clock/testing/sequential-id-generator.js';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { CredentialCipher } from '../datasource/credential-cipher.service.js';
import { EgressGuard } from '../engine/egress/egress-guard.js';
import type { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import type { WebhookRecord } from './webhook.entity.js';
import type { WebhookError } from './webhook.error.js';
import type { WebhookRepository } from './webhook.repository.js';
import { WebhookService } from './webhook.service.js';

const masterKey = Buffer.alloc(32, 9);
const cipher = new CredentialCipher({ encryption: { masterKey, keyVersion: '1', generated: false, keyring: new Map([['1', masterKey]]) } });

function service(resolve: (host: string) => string[] = () => ['93.184.216.34']) {
  const stored: WebhookRecord[] = [];
  const hooks = { insert: async (record: WebhookRecord) => void stored.push(record) } as unknown as WebhookRepository;
  const guard = new EgressGuard({ allowPrivateHosts: false }, async (host) => resolve(host));
  const ids = new SequentialIdGenerator();
  const webhooks = new WebhookService(hooks, {} as WebhookDeliveryRepository, cipher, guard, new ManualClock(), ids);
  return { webhooks, stored };
}
const refusal = async (url: string, resolve?: (host: string) => string[]): Promise<WebhookError> => {
  try {
    await service(resolve).webhooks.create('reporter', { url, events: ['job.completed'] });
  } catch (error) {
    return error as WebhookError;
  }
  throw new Error(`expected ${url} to be refused`);
};

describe('WebhookService.create', () => {
  it('stores the secret only sealed, and answers it once', async () => {
    const { webhooks, stored } = service();
    const created = await webhooks.create('reporter', { url: 'https://hooks.example.com/x?a=1', events: ['job.failed'] });
    expect(created).toMatchObject({
      productName: 'reporter',
      url: 'https://hooks.example.com/x?a=1',
      events: ['job.failed'],
      description: null,
    });
    expect(JSON.stringify(stored)).not.toContain(created.secret.slice('whsec_'.length));
    expect(cipher.decrypt(stored[0].secretCiphertext, stored[0].keyVersion)).toBe(created.secret);
  });

  it.each([
    ['ftp://hooks.example.com/x', 'FET-0001', 'url must use http or https'],
    ['hooks.example.com/x', 'FET-0001', 'url must be an absolute http or https URL'],
    ['https://u:p@hooks.example.com/x', 'FET-0001', 'url must not carry a user name or password'],
    ['https://hooks.example.com/x#frag', 'FET-0001', 'url must not have a #fragment'],
    ['http://127.0.0.1/x', 'FET-0414', expect.stringContaining('not allowed')],
    ['http://[::1]/x', 'FET-0414', expect.stringContaining('not allowed')],
    ['http://localhost/x', 'FET-0414', expect.stringContaining('not allowed')],
    ['http://169.254.169.254/latest', 'FET-0414', expect.stringContaining('not allowed')],
  ])('refuses %s with %s naming url', async (url, code, problem) => {
    const error = await refusal(url);
    expect(error.code).toBe(code);
    expect(error.fields).toEqual({ url: problem });
  });

  it('refuses a name any of whose addresses is private', async () => {
    const error = await refusal('https://mixed.example.com/x', () => ['93.184.216.34', '10.0.0.8']);
    expect(error.code).toBe('FET-0414');
    expect(error.message).not.toContain('mixed.example.com');
  });
});
