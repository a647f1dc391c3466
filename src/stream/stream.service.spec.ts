import { describe, expect, it, vi } from 'vitest';
import type { Principal } from '../auth/principal.js';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { FetCode } from '../engine/errors/fet-code.js';
import type { StreamRecord } from './stream.entity.js';
import type { StreamRepository } from './stream.repository.js';
import { StreamService } from './stream.service.js';

const OPERATOR: Principal = { id: 'admin-key:1', method: 'apikey', operator: true, products: [] };
const ALPHA: Principal = { id: 'apikey:a', method: 'apikey', operator: false, products: ['alpha'] };
const BOTH: Principal = { id: 'jwt:iss|sub', method: 'jwt', operator: false, products: ['alpha', 'beta'] };
const NONE: Principal = { id: 'jwt:iss|none', method: 'jwt', operator: false, products: [] };
const AT = new Date('2026-03-01T10:00:00.000Z');

function build() {
  const record = (productName: string, name: string): StreamRecord => ({
    productName,
    name,
    marks: {},
    lastJobId: null,
    createdAt: AT,
    updatedAt: AT,
  });
  const streams = {
    find: vi.fn(async (productName: string, name: string) => record(productName, name)),
    list: vi.fn(async () => ({ items: [record('alpha', 'a')], total: 1 })),
    replaceMarks: vi.fn(async (productName: string, name: string) => record(productName, name)),
    remove: vi.fn(async () => true),
  };
  return { streams, service: new StreamService(streams as unknown as StreamRepository, new ManualClock(AT)) };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { code: string }) => error.code,
  );

describe('StreamService: which product a stream route acts on', () => {
  it('defaults to the only product of a credential, and takes source from the others', async () => {
    const { streams, service } = build();
    await service.get('s', {}, ALPHA);
    await service.get('s', { source: 'beta' }, BOTH);
    await service.get('s', { source: 'gamma' }, OPERATOR);
    expect(streams.find.mock.calls).toEqual([
      ['alpha', 's'],
      ['beta', 's'],
      ['gamma', 's'],
    ]);
  });

  it('asks the operator and a credential of several products for source (400 FET-0405 naming it)', async () => {
    const { service } = build();
    for (const principal of [OPERATOR, BOTH]) {
      const refused = await service.remove('s', {}, principal).catch((error: { code: string; fields: object; message: string }) => error);
      expect(refused).toMatchObject({ code: FetCode.InvalidQuery, fields: { source: expect.stringMatching(/^source is required/) } });
    }
    expect(await service.get('s', {}, BOTH).catch((error: Error) => error.message)).toBe(
      'source is required: this credential acts for several products (alpha, beta); name the product whose stream this is (?source=<product>)',
    );
  });

  it('answers another product, or a credential of none, as a stream nobody created: 404, never 403', async () => {
    const { streams, service } = build();
    expect(await codeOf(service.get('s', { source: 'beta' }, ALPHA))).toBe(FetCode.NotFound);
    expect(await codeOf(service.putMarks('s', { source: 'beta' }, {}, ALPHA))).toBe(FetCode.NotFound);
    expect(await codeOf(service.remove('s', {}, NONE))).toBe(FetCode.NotFound);
    streams.find.mockResolvedValueOnce(null as never);
    expect(await codeOf(service.get('s', {}, ALPHA))).toBe(FetCode.NotFound);
    streams.remove.mockResolvedValueOnce(false);
    expect(await codeOf(service.remove('s', {}, ALPHA))).toBe(FetCode.NotFound);
    expect(streams.replaceMarks).not.toHaveBeenCalled();
  });

  it('lists the products a principal acts for: all for the operator, none for a source it does not act for', async () => {
    const { streams, service } = build();
    await service.list({ page: 2, limit: 5 }, OPERATOR);
    await service.list({ page: 1, limit: 10 }, BOTH);
    await service.list({ page: 1, limit: 10, source: 'gamma' }, BOTH);
    expect(streams.list.mock.calls).toEqual([
      [undefined, { skip: 5, take: 5 }],
      [['alpha', 'beta'], { skip: 0, take: 10 }],
      [[], { skip: 0, take: 10 }],
    ]);
  });

  it('checks marks before writing them, naming each field; a good PUT is stamped with the clock', async () => {
    const { streams, service } = build();
    const refused = await service
      .putMarks('s', {}, { pg: { t: { column: 'id', type: 'integer' } } }, ALPHA)
      .catch((error: { code: string; message: string; fields: object }) => error);
    expect(refused).toMatchObject({
      code: FetCode.InvalidDataRequest,
      message: "marks.pg.t: a mark's value is a non-empty string",
      fields: { 'marks.pg.t': "a mark's value is a non-empty string" },
    });
    const marks = { pg: { t: { column: 'id', type: 'integer', value: '3' } } };
    await service.putMarks('s', {}, marks, ALPHA);
    expect(streams.replaceMarks).toHaveBeenCalledWith('alpha', 's', marks, AT);
  });
});
