import { describe, expect, it } from 'vitest';
import { DEFAULT_CEILINGS } from './data-request.js';
import { validateDataRequest } from './data-request.validator.js';
import { DataRequestError } from './data-request.error.js';

const mappedFields = { pg: { orders: ['id', 'total'], 'sales.lines': ['*'] } };

/** The `fields` of the refusal, or {} when the request passes. */
function fieldsOf(incremental: unknown, filters?: unknown): Record<string, string> {
  try {
    validateDataRequest({ mappedFields, filters, incremental }, DEFAULT_CEILINGS);
    return {};
  } catch (error) {
    if (!(error instanceof DataRequestError)) throw error;
    return error.fields ?? {};
  }
}

describe('dataRequest.incremental shape', () => {
  it('accepts a stream with cursors, a lag and starting values', () => {
    expect(
      fieldsOf({
        stream: 'daily orders',
        cursors: { pg: { orders: 'id', 'sales.lines': 'at' } },
        lagSeconds: 60,
        initial: { pg: { orders: 100 } },
      }),
    ).toEqual({});
  });

  it('names the stream when it is missing, too long, blank-edged or has control characters', () => {
    const cursors = { pg: { orders: 'id' } };
    expect(Object.keys(fieldsOf({ cursors }))).toEqual(['dataRequest.incremental.stream']);
    expect(fieldsOf({ stream: 'x'.repeat(129), cursors })['dataRequest.incremental.stream']).toMatch(/at most 128 characters, got 129/);
    expect(fieldsOf({ stream: 'x'.repeat(128), cursors })).toEqual({});
    expect(fieldsOf({ stream: 'a\u0007b', cursors })['dataRequest.incremental.stream']).toMatch(/control characters/);
    expect(fieldsOf({ stream: 'a\nb', cursors })['dataRequest.incremental.stream']).toMatch(/control characters/);
    expect(fieldsOf({ stream: 'a\u0085b', cursors })['dataRequest.incremental.stream']).toMatch(/control characters/);
    expect(fieldsOf({ stream: ' a', cursors })['dataRequest.incremental.stream']).toMatch(/whitespace/);
  });

  it('names each cursor whose datasource or table is not mapped, or which names no column', () => {
    const fields = fieldsOf({ stream: 's', cursors: { other: { orders: 'id' }, pg: { missing: 'id', orders: '', 'sales.lines': 5 } } });
    expect(fields).toEqual({
      'dataRequest.incremental.cursors.other': "datasource 'other' is not in mappedFields",
      'dataRequest.incremental.cursors.pg.missing': "table 'pg.missing' is not in mappedFields",
      'dataRequest.incremental.cursors.pg.orders': 'a cursor must name one column',
      'dataRequest.incremental.cursors.pg.sales.lines': 'a cursor must name one column',
    });
    expect(Object.keys(fieldsOf({ stream: 's', cursors: {} }))).toEqual(['dataRequest.incremental.cursors']);
  });

  it('refuses a lag that is not a whole number of seconds within 30 days', () => {
    const base = { stream: 's', cursors: { pg: { orders: 'id' } } };
    for (const lagSeconds of [0, -1, 1.5, '60', 2_592_001]) {
      expect(Object.keys(fieldsOf({ ...base, lagSeconds }))).toEqual(['dataRequest.incremental.lagSeconds']);
    }
  });

  it('refuses starting values of tables without a cursor and values that are not text or finite numbers', () => {
    const fields = fieldsOf({ stream: 's', cursors: { pg: { orders: 'id' } }, initial: { pg: { 'sales.lines': '1', orders: true } } });
    expect(Object.keys(fields).sort()).toEqual([
      'dataRequest.incremental.initial.pg.orders',
      'dataRequest.incremental.initial.pg.sales.lines',
    ]);
  });

  it('refuses unknown members, and gt/gte/lte filters on a cursor column (the range is the stream’s)', () => {
    expect(Object.keys(fieldsOf({ stream: 's', cursors: { pg: { orders: 'id' } }, since: 1 }))).toEqual(['dataRequest.incremental.since']);
    const fields = fieldsOf(
      { stream: 's', cursors: { pg: { orders: 'id' } } },
      { pg: { orders: { id: { gte: [5], ne: [7] }, total: { gt: [1] } } } },
    );
    expect(Object.keys(fields)).toEqual(['dataRequest.filters.pg.orders.id.gte']);
  });

  it('is not an object', () => {
    expect(Object.keys(fieldsOf('daily'))).toEqual(['dataRequest.incremental']);
  });
});
