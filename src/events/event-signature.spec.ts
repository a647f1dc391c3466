import { createHmac, hkdfSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSigner, signedString, type SignedFields } from './event-signature.js';

// The example of docs/security.md, "Event signatures": master key 32 × 0x2a.
const MASTER_KEY = Buffer.alloc(32, 0x2a);
const JOB_ID = '7d3c1a4e-0b7f-4d8e-9a61-2f5e8c9b0a13';
const BODY = `{"jobId":"${JOB_ID}","status":"failed"}`;
const FIELDS: SignedFields = {
  t: 1767225600,
  tenantId: '',
  jobId: JOB_ID,
  exchange: 'fetcher.job.events',
  routingKey: 'job.failed',
  body: Buffer.from(BODY),
};
const DOCUMENTED_SIGNATURE = 'b9f53e42430634545bc6f5e6890ae88a007317ea7cdc32011f489b5c24a70267';

describe('EventSigner', () => {
  const signer = EventSigner.fromMasterKey(MASTER_KEY, '3');

  it('signs the documented string with HKDF(master, info fetcher-external-hmac-v1), as a consumer recomputes it', () => {
    expect(signedString(FIELDS).toString()).toBe(`1767225600\nv1\n\n${JOB_ID}\nfetcher.job.events\njob.failed\n${BODY}`);
    const consumerKey = Buffer.from(hkdfSync('sha256', MASTER_KEY, Buffer.alloc(0), 'fetcher-external-hmac-v1', 32));
    const recomputed = createHmac('sha256', consumerKey)
      .update(`1767225600\nv1\n\n${JOB_ID}\nfetcher.job.events\njob.failed\n${BODY}`)
      .digest('hex');
    expect(recomputed).toBe(DOCUMENTED_SIGNATURE);
    expect(signer.headers(FIELDS)).toEqual({
      'x-message-signature': DOCUMENTED_SIGNATURE,
      t: '1767225600',
      'signature-version': 'v1',
      'x-signature-key-version': '3',
    });
  });

  it('binds every field: changing any one gives another signature', () => {
    const base = signer.headers(FIELDS)['x-message-signature'];
    const variants: SignedFields[] = [
      { ...FIELDS, t: FIELDS.t + 1 },
      { ...FIELDS, tenantId: 'acme' },
      { ...FIELDS, jobId: '' },
      { ...FIELDS, exchange: 'fetcher.job.events.copy' },
      { ...FIELDS, routingKey: 'job.completed' },
      { ...FIELDS, body: Buffer.from(BODY.replace('failed', 'completed')) },
      { ...FIELDS, body: Buffer.from(`${BODY} `) },
    ];
    const signatures = variants.map((fields) => signer.headers(fields)['x-message-signature']);
    expect(signatures.every((signature) => signature !== base)).toBe(true);
    expect(new Set(signatures).size).toBe(variants.length);
  });

  it('keeps the lines apart: a value cannot slide from one field into the next', () => {
    const a = signer.headers({ ...FIELDS, exchange: 'events', routingKey: 'job.failed' })['x-message-signature'];
    const b = signer.headers({ ...FIELDS, exchange: 'eventsjob', routingKey: '.failed' })['x-message-signature'];
    expect(a).not.toBe(b);
  });

  it('signs with the key of its master key only', () => {
    const other = EventSigner.fromMasterKey(Buffer.alloc(32, 0x2b), '4');
    expect(other.headers(FIELDS)['x-message-signature']).not.toBe(DOCUMENTED_SIGNATURE);
    expect(other.headers(FIELDS)['x-signature-key-version']).toBe('4');
  });
});

/** An AMQP delivery as amqplib hands it to a consumer: what the documented example reads. */
interface Delivery {
  readonly fields: { readonly exchange: string; readonly routingKey: string };
  readonly properties: { readonly headers: Record<string, unknown> };
  readonly content: Buffer;
}
type VerifyEvent = (message: Delivery, keys: Map<string, Buffer>, nowSeconds?: number) => boolean;

describe('the verification example of docs/security.md', () => {
  let dir: string;
  let verifyEvent: VerifyEvent;

  // The snippet as a consumer would copy it, run as a module of its own.
  beforeAll(async () => {
    const page = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Event signatures'));
    const snippet = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(snippet).toBeDefined();
    dir = mkdtempSync(join(tmpdir(), 'fetcher-event-doc-'));
    const file = join(dir, 'verify-event.mjs');
    writeFileSync(file, `${snippet}\nexport { verifyEvent };\n`);
    ({ verifyEvent } = (await import(pathToFileURL(file).href)) as { verifyEvent: VerifyEvent });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const signer = EventSigner.fromMasterKey(MASTER_KEY, '1');
  const consumerKey = Buffer.from(hkdfSync('sha256', MASTER_KEY, Buffer.alloc(0), 'fetcher-external-hmac-v1', 32));
  const delivery = (fields: SignedFields = FIELDS): Delivery => ({
    fields: { exchange: fields.exchange, routingKey: fields.routingKey },
    properties: { headers: { 'x-event-id': 'e', ...signer.headers(fields) } },
    content: fields.body,
  });
  const keys = new Map([['1', consumerKey]]);
  const now = FIELDS.t + 5;

  it('accepts a message as Fetcher signs it, and refuses one with its body, routing key or t altered', () => {
    const genuine = delivery();
    expect(verifyEvent(genuine, keys, now)).toBe(true);
    expect(verifyEvent({ ...genuine, content: Buffer.from(BODY.replace('failed', 'completed')) }, keys, now)).toBe(false);
    expect(verifyEvent({ ...genuine, fields: { ...genuine.fields, routingKey: 'job.completed' } }, keys, now)).toBe(false);
    const t = String(FIELDS.t - 1);
    expect(verifyEvent({ ...genuine, properties: { headers: { ...genuine.properties.headers, t } } }, keys, now)).toBe(false);
  });

  it('applies the replay window: 300 s back, 30 s ahead', () => {
    expect(verifyEvent(delivery(), keys, FIELDS.t + 300)).toBe(true);
    expect(verifyEvent(delivery(), keys, FIELDS.t + 301)).toBe(false);
    expect(verifyEvent(delivery(), keys, FIELDS.t - 30)).toBe(true);
    expect(verifyEvent(delivery(), keys, FIELDS.t - 31)).toBe(false);
  });

  it('picks the key its version header names, tries each without one, and fails with none that fits', () => {
    const other = Buffer.alloc(32, 1);
    const rotated = new Map([
      ['1', consumerKey],
      ['2', other],
    ]);
    const genuine = delivery();
    expect(verifyEvent(genuine, rotated, now)).toBe(true);
    const { ['x-signature-key-version']: _version, ...original } = genuine.properties.headers;
    expect(
      verifyEvent(
        { ...genuine, properties: { headers: original } },
        new Map([
          ['2', other],
          ['1', consumerKey],
        ]),
        now,
      ),
    ).toBe(true);
    expect(verifyEvent(genuine, new Map([['2', other]]), now)).toBe(false);
  });
});
