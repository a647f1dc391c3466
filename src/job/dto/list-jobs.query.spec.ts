import { describe, expect, it } from 'vitest';
import { JobStatus } from '../job-status.js';
import { parseListJobsQuery } from './list-jobs.query.js';

/** The thrown error's code, HTTP status and the fields it names. */
function refusal(raw: Record<string, unknown>): { code: string; status: number; fields: string[] } {
  try {
    parseListJobsQuery(raw);
  } catch (error) {
    const { code, status, fields } = error as { code: string; status: number; fields?: Record<string, string> };
    return { code, status, fields: Object.keys(fields ?? {}) };
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

describe('parseListJobsQuery', () => {
  it('defaults to the first page of 10, newest first, no filter', () => {
    expect(parseListJobsQuery({})).toEqual({ page: 1, limit: 10, order: 'DESC' });
  });

  it('reads page and limit, up to 100 per page', () => {
    expect(parseListJobsQuery({ page: '3', limit: '100' })).toMatchObject({ page: 3, limit: 100 });
    expect(parseListJobsQuery({ page: '', limit: '' })).toMatchObject({ page: 1, limit: 10 });
  });

  it.each([['0'], ['-1'], ['1.5'], ['abc'], ['1e3'], ['1000001']])('refuses page=%s with FET-0405', (page) => {
    expect(refusal({ page })).toEqual({ code: 'FET-0405', status: 400, fields: ['page'] });
  });

  it('refuses a limit above 100 with FET-0406 and a malformed one with FET-0405', () => {
    expect(refusal({ limit: '101' })).toEqual({ code: 'FET-0406', status: 400, fields: ['limit'] });
    expect(refusal({ limit: '0' })).toEqual({ code: 'FET-0405', status: 400, fields: ['limit'] });
    expect(refusal({ limit: 'ten' })).toEqual({ code: 'FET-0405', status: 400, fields: ['limit'] });
  });

  it('sorts asc or desc in any case, and refuses anything else with FET-0407', () => {
    expect(parseListJobsQuery({ sortOrder: 'asc' }).order).toBe('ASC');
    expect(parseListJobsQuery({ sortOrder: 'DESC' }).order).toBe('DESC');
    for (const sortOrder of ['up', '', 'ascending'])
      expect(refusal({ sortOrder })).toEqual({ code: 'FET-0407', status: 400, fields: ['sortOrder'] });
  });

  it('filters on each status and refuses another value with FET-0405', () => {
    for (const status of Object.values(JobStatus)) expect(parseListJobsQuery({ status }).status).toBe(status);
    for (const status of ['done', 'COMPLETED', ''])
      expect(refusal({ status })).toEqual({ code: 'FET-0405', status: 400, fields: ['status'] });
  });

  it('trims and lower-cases source as jobs store it', () => {
    expect(parseListJobsQuery({ source: '  Reporter ' }).source).toBe('reporter');
    expect(parseListJobsQuery({ source: 'billing-eu_2' }).source).toBe('billing-eu_2');
  });

  it('refuses an empty, blank or over-long source with FET-0405: it would otherwise list every product', () => {
    for (const source of ['', '   ', 'x'.repeat(101)])
      expect(refusal({ source })).toEqual({ code: 'FET-0405', status: 400, fields: ['source'] });
    expect(parseListJobsQuery({ source: 'x'.repeat(100) }).source).toHaveLength(100);
  });

  it('turns startDate and endDate into a UTC range that includes the whole end day', () => {
    const query = parseListJobsQuery({ startDate: '2026-02-27', endDate: '2026-03-01' });
    expect(query.createdFrom).toEqual(new Date('2026-02-27T00:00:00.000Z'));
    expect(query.createdBefore).toEqual(new Date('2026-03-02T00:00:00.000Z'));
    expect(parseListJobsQuery({ startDate: '2026-01-05', endDate: '2026-01-05' }).createdBefore).toEqual(
      new Date('2026-01-06T00:00:00.000Z'),
    );
    expect(parseListJobsQuery({ endDate: '2024-12-31' })).toMatchObject({
      createdFrom: undefined,
      createdBefore: new Date('2025-01-01T00:00:00.000Z'),
    });
    expect(parseListJobsQuery({ startDate: '', endDate: '' })).toMatchObject({ createdFrom: undefined, createdBefore: undefined });
  });

  it.each([['2026-02-30'], ['2026-13-01'], ['2026-1-01'], ['01/02/2026'], ['2026-01-01T00:00:00Z'], ['yesterday']])(
    'refuses the date %s with FET-0408 naming the parameter',
    (value) => {
      expect(refusal({ startDate: value })).toEqual({ code: 'FET-0408', status: 400, fields: ['startDate'] });
      expect(refusal({ endDate: value })).toEqual({ code: 'FET-0408', status: 400, fields: ['endDate'] });
    },
  );

  it('refuses an endDate before startDate with FET-0409 on endDate', () => {
    expect(refusal({ startDate: '2026-03-02', endDate: '2026-03-01' })).toEqual({ code: 'FET-0409', status: 400, fields: ['endDate'] });
  });

  it('refuses unknown parameters with FET-0405 naming every one of them', () => {
    expect(refusal({ sourse: 'x', productName: 'y', status: 'pending' })).toEqual({
      code: 'FET-0405',
      status: 400,
      fields: ['sourse', 'productName'],
    });
    expect(refusal({ status: { eq: 'pending' } })).toEqual({ code: 'FET-0405', status: 400, fields: ['status.eq'] });
    expect(refusal(Object.fromEntries([['__proto__', 'x']]))).toEqual({ code: 'FET-0405', status: 400, fields: ['__proto__'] });
  });

  it('refuses a repeated parameter with FET-0405 naming it', () => {
    for (const name of ['status', 'source', 'page', 'startDate']) {
      expect(refusal({ [name]: ['a', 'b'] })).toEqual({ code: 'FET-0405', status: 400, fields: [name] });
    }
  });

  it('combines every filter', () => {
    expect(
      parseListJobsQuery({
        page: '2',
        limit: '5',
        sortOrder: 'asc',
        status: 'failed',
        source: 'Alpha',
        startDate: '2026-01-01',
        endDate: '2026-01-31',
      }),
    ).toEqual({
      page: 2,
      limit: 5,
      order: 'ASC',
      status: JobStatus.Failed,
      source: 'alpha',
      createdFrom: new Date('2026-01-01T00:00:00.000Z'),
      createdBefore: new Date('2026-02-01T00:00:00.000Z'),
    });
  });
});
