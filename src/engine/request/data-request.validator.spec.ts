import { describe, expect, it } from 'vitest';
import { DataRequestError } from './data-request.error.js';
import { effectiveLimits, validateDataRequest } from './data-request.validator.js';
import { DEFAULT_CEILINGS, MAX_VALUES_PER_OPERATOR, type DataRequestInput } from './data-request.js';

function errorOf(request: DataRequestInput): DataRequestError {
  try {
    validateDataRequest({ mappedFields: {}, ...request }, DEFAULT_CEILINGS);
  } catch (error) {
    expect(error).toBeInstanceOf(DataRequestError);
    return error as DataRequestError;
  }
  throw new Error('expected a validation error');
}

const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
const tables = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, ['id']]));
const datasources = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`ds${i}`, { t: ['id'] }]));

describe('validateDataRequest', () => {
  it('accepts the boundaries: 10 datasources, 20 tables, 50 fields', () => {
    expect(() => validateDataRequest({ mappedFields: datasources(10) }, DEFAULT_CEILINGS)).not.toThrow();
    expect(() => validateDataRequest({ mappedFields: { ds: tables(20) } }, DEFAULT_CEILINGS)).not.toThrow();
    expect(() => validateDataRequest({ mappedFields: { ds: { t: fields(50) } } }, DEFAULT_CEILINGS)).not.toThrow();
  });

  it.each([
    ['11 datasources', { mappedFields: datasources(11) }, 'maximum 10 datasources allowed per job, got 11'],
    ['21 tables', { mappedFields: { ds: tables(21) } }, "maximum 20 tables allowed per datasource, got 21 for 'ds'"],
    ['51 fields', { mappedFields: { ds: { t: fields(51) } } }, "maximum 50 fields allowed per table, got 51 for 'ds.t'"],
  ])('refuses %s with FET-1061', (_name, request, message) => {
    const error = errorOf(request);
    expect(error.kind).toBe('limit_exceeded');
    expect(error.message).toBe(message);
  });

  it('applies a lowered limit', () => {
    const error = errorOf({ mappedFields: datasources(3), limits: { maxDatasources: 2 } });
    expect(error.message).toBe('maximum 2 datasources allowed per job, got 3');
  });

  it('lists every shape problem at once', () => {
    const error = errorOf({ mappedFields: { ds: { a: [], b: ['*', 'id'], c: ['x', 'x'], ' ': ['id'] }, other: {} } });
    expect(error.kind).toBe('invalid');
    expect(error.problems?.map((detail) => [detail.datasource, detail.table])).toEqual([
      ['ds', 'a'],
      ['ds', 'b'],
      ['ds', 'c'],
      ['ds', ' '],
      ['other', undefined],
    ]);
  });

  it('refuses an empty mappedFields', () => {
    expect(errorOf({ mappedFields: {} }).message).toBe('mappedFields cannot be empty');
  });

  it.each([
    ['an unknown operator', { id: { equals: [1] } }, "unknown operator 'equals'"],
    ['gt with two values', { id: { gt: [1, 2] } }, "operator 'gt' on 'ds.t.id' takes exactly 1 value, got 2"],
    ['between with one value', { id: { between: [1] } }, "operator 'between' on 'ds.t.id' takes exactly 2 values, got 1"],
    ['in with no value', { id: { in: [] } }, "operator 'in' on 'ds.t.id' takes at least 1 value"],
    ['a non-scalar value', { id: { eq: [{ a: 1 }] } }, 'takes only strings, numbers, booleans or null'],
    ['a non-array value', { id: { eq: 1 } }, 'takes an array of values'],
    ['like with a number', { id: { like: [1] } }, "operator 'like' on 'ds.t.id' takes a string pattern"],
  ])('refuses a filter with %s, naming datasource, table, field and operator', (_name, condition, message) => {
    const error = errorOf({ mappedFields: { ds: { t: ['id'] } }, filters: { ds: { t: condition as never } } });
    expect(error.kind).toBe('invalid');
    expect(error.message).toContain(message);
    expect(error.problems?.[0]).toMatchObject({ type: 'invalid_filter', datasource: 'ds', table: 't', field: 'id' });
  });

  it('refuses filters on datasources or tables that are not mapped', () => {
    expect(errorOf({ mappedFields: { ds: { t: ['id'] } }, filters: { other: { t: { id: { eq: [1] } } } } }).message).toContain(
      "filter references datasource 'other', which is not in mappedFields",
    );
    expect(errorOf({ mappedFields: { ds: { t: ['id'] } }, filters: { ds: { u: { id: { eq: [1] } } } } }).message).toContain(
      "filter references table 'ds.u', which is not in mappedFields",
    );
  });

  it('accepts eq [null] and ne [null]', () => {
    expect(() =>
      validateDataRequest(
        { mappedFields: { ds: { t: ['id'] } }, filters: { ds: { t: { a: { eq: [null] }, b: { ne: [null] } } } } },
        DEFAULT_CEILINGS,
      ),
    ).not.toThrow();
  });

  it('refuses limits above the ceiling or not positive integers, naming each', () => {
    const error = errorOf({ mappedFields: { ds: { t: ['id'] } }, limits: { maxParallelDatasources: 5, timeoutMs: 1.5 } });
    expect(error.fields).toEqual({
      'dataRequest.limits.maxParallelDatasources': 'dataRequest.limits.maxParallelDatasources must not exceed 4',
      'dataRequest.limits.timeoutMs': 'dataRequest.limits.timeoutMs must be a positive integer',
    });
  });

  it('lowers only the limits given', () => {
    expect(effectiveLimits(DEFAULT_CEILINGS, { maxParallelDatasources: 2 })).toEqual({ ...DEFAULT_CEILINGS, maxParallelDatasources: 2 });
  });

  describe('hostile shapes and names', () => {
    const accepts = (request: unknown) => expect(() => validateDataRequest(request as DataRequestInput, DEFAULT_CEILINGS)).not.toThrow();
    const parsed = (json: string) => JSON.parse(json) as Partial<DataRequestInput>;

    it.each([
      ['an array as dataRequest', [], 'dataRequest'],
      ['an array of arrays as dataRequest', [[]], 'dataRequest'],
      ['an array as mappedFields', { mappedFields: [] }, 'dataRequest.mappedFields'],
      ['a string as filters', { mappedFields: { ds: { t: ['id'] } }, filters: 'x' }, 'dataRequest.filters'],
      ['an array as filters', { mappedFields: { ds: { t: ['id'] } }, filters: [] }, 'dataRequest.filters'],
      ['an array as limits', { mappedFields: { ds: { t: ['id'] } }, limits: [[]] }, 'dataRequest.limits'],
    ])('answers %s with FET-0401 naming it, not a TypeError', (_name, request, path) => {
      let error: DataRequestError | undefined;
      try {
        validateDataRequest(request as unknown as DataRequestInput, DEFAULT_CEILINGS);
      } catch (thrown) {
        error = thrown as DataRequestError;
      }
      expect(error?.kind).toBe('invalid');
      expect(Object.keys(error?.fields ?? {})).toContain(path);
    });

    it('does not find a filter table in the prototype of mappedFields (toString, constructor, hasOwnProperty)', () => {
      for (const table of ['toString', 'constructor', 'hasOwnProperty', 'valueOf']) {
        const error = errorOf({ mappedFields: { ds: { t: ['id'] } }, filters: { ds: { [table]: { id: { eq: [1] } } } } });
        expect(error.kind).toBe('invalid');
        expect(error.problems?.[0]).toMatchObject({ type: 'invalid_filter', datasource: 'ds', table });
      }
      expect(errorOf({ mappedFields: { ds: { t: ['id'] } }, filters: { toString: { t: { id: { eq: [1] } } } } }).problems[0]).toMatchObject(
        {
          type: 'invalid_filter',
          datasource: 'toString',
        },
      );
    });

    it('treats constructor, prototype and toString as ordinary names when they are mapped', () => {
      accepts(
        parsed(
          '{"mappedFields":{"constructor":{"prototype":["toString"]}},"filters":{"constructor":{"prototype":{"constructor":{"eq":[1]}}}}}',
        ),
      );
    });

    it.each([
      ['a datasource', '{"mappedFields":{"__proto__":{"t":["id"]}}}', 'dataRequest.mappedFields.__proto__'],
      ['a table', '{"mappedFields":{"ds":{"__proto__":["id"]}}}', 'dataRequest.mappedFields.ds.__proto__'],
      ['a schema-qualified table', '{"mappedFields":{"ds":{"public.__proto__":["id"]}}}', 'dataRequest.mappedFields.ds.public.__proto__'],
      ['a table in another case', '{"mappedFields":{"ds":{"__PROTO__":["id"]}}}', 'dataRequest.mappedFields.ds.__PROTO__'],
      ['a field', '{"mappedFields":{"ds":{"t":["__proto__"]}}}', 'dataRequest.mappedFields.ds.t'],
      [
        'a filter field',
        '{"mappedFields":{"ds":{"t":["id"]}},"filters":{"ds":{"t":{"__proto__":{"eq":[1]}}}}}',
        'dataRequest.filters.ds.t.__proto__',
      ],
    ])('refuses __proto__ as %s, naming it (an assignment downstream would drop it)', (_name, json, path) => {
      const error = errorOf(parsed(json));
      expect(error.kind).toBe('invalid');
      expect(error.fields?.[path]).toContain("'__proto__' is refused");
    });

    it(`accepts ${MAX_VALUES_PER_OPERATOR} values for one operator and refuses one more with FET-1061, naming the operator`, () => {
      const values = (n: number) => Array.from({ length: n }, (_, i) => i);
      accepts({ mappedFields: { ds: { t: ['id'] } }, filters: { ds: { t: { id: { in: values(MAX_VALUES_PER_OPERATOR) } } } } });
      for (const operator of ['in', 'nin', 'eq', 'ne'] as const) {
        const error = errorOf({
          mappedFields: { ds: { t: ['id'] } },
          filters: { ds: { t: { id: { [operator]: values(MAX_VALUES_PER_OPERATOR + 1) } } } },
        });
        expect(error.kind).toBe('limit_exceeded');
        expect(error.fields).toEqual({
          [`dataRequest.filters.ds.t.id.${operator}`]: `operator '${operator}' on 'ds.t.id' takes at most 10000 values, got 10001`,
        });
        expect(error.problems?.[0]).toMatchObject({ type: 'limit_exceeded', datasource: 'ds', table: 't', field: 'id', operator });
      }
      expect(errorOf({ mappedFields: { ds: { t: ['id'] } }, filters: { ds: { t: { id: { in: values(65_536) } } } } }).kind).toBe(
        'limit_exceeded',
      );
    });
  });
});
