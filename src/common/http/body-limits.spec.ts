import { describe, expect, it } from 'vitest';
import { FetCode } from '../../engine/errors/fet-code.js';
import type { RequestValidationError } from '../errors/request-errors.js';
import { assertBodyWithinLimits, BODY_LIMITS } from './body-limits.js';

function refusal(body: unknown): RequestValidationError {
  try {
    assertBodyWithinLimits(body);
  } catch (error) {
    return error as RequestValidationError;
  }
  throw new Error('expected the body to be refused');
}

/** `{"a":{"a":…1…}}` with `levels` objects, built as text like a hostile client would. */
const nestedObjects = (levels: number) => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`) as unknown;
const nestedArrays = (levels: number) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`) as unknown;

describe('assertBodyWithinLimits', () => {
  it('accepts no body, an empty object and a realistic job', () => {
    expect(() => assertBodyWithinLimits(undefined)).not.toThrow();
    expect(() => assertBodyWithinLimits({})).not.toThrow();
    const job = {
      metadata: { source: 'reporter' },
      dataRequest: { mappedFields: { pg: { t: ['id'] } }, filters: { pg: { t: { id: { in: [1, 2] } } } } },
    };
    expect(() => assertBodyWithinLimits(job)).not.toThrow();
  });

  it.each([
    ['an array', []],
    ['an array of arrays', [[]]],
    ['a string', 'x'],
    ['a number', 3],
    ['null', null],
  ])('refuses %s as the body, naming the body', (_name, body) => {
    const error = refusal(body);
    expect(error.code).toBe(FetCode.BadRequest);
    expect(error.fields).toEqual({ body: 'the request body must be a JSON object' });
  });

  it('accepts 32 levels and refuses 33, naming the path down to the 33rd', () => {
    expect(() => assertBodyWithinLimits(nestedObjects(BODY_LIMITS.maxDepth))).not.toThrow();
    expect(() => assertBodyWithinLimits({ m: nestedArrays(BODY_LIMITS.maxDepth - 1) })).not.toThrow();
    const error = refusal(nestedObjects(BODY_LIMITS.maxDepth + 1));
    const path = Array.from({ length: BODY_LIMITS.maxDepth }, () => 'a').join('.');
    expect(error.fields).toEqual({ [path]: `${path} nests deeper than 32 levels` });
    expect(refusal({ m: nestedArrays(BODY_LIMITS.maxDepth) }).message).toMatch(/^m\.0\.0.* nests deeper than 32 levels$/);
  });

  it('refuses 100,000 levels without overflowing the stack (it is iterative)', () => {
    expect(refusal(nestedObjects(100_000)).code).toBe(FetCode.BadRequest);
    expect(refusal({ metadata: nestedArrays(100_000) }).code).toBe(FetCode.BadRequest);
  });

  it('accepts 1,000 members in one object and refuses 1,001, naming the object', () => {
    const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(() => assertBodyWithinLimits({ metadata: wide(BODY_LIMITS.maxKeysPerObject) })).not.toThrow();
    expect(refusal({ metadata: wide(BODY_LIMITS.maxKeysPerObject + 1) }).fields).toEqual({
      metadata: 'metadata has 1001 members; at most 1000 are allowed in one object',
    });
  });

  it('accepts 50,000 members in all and refuses more', () => {
    const spread = (total: number) =>
      Object.fromEntries(
        Array.from({ length: total / 500 }, (_, i) => [`o${i}`, Object.fromEntries(Array.from({ length: 499 }, (_, j) => [`k${j}`, j]))]),
      );
    expect(() => assertBodyWithinLimits(spread(50_000))).not.toThrow();
    expect(refusal(spread(50_500)).fields).toEqual({ body: 'the request body has more than 50000 object members in all' });
  });

  it('does not count array elements: 200,000 filter values pass the guard (the validator caps them)', () => {
    expect(() => assertBodyWithinLimits({ values: Array.from({ length: 200_000 }, (_, i) => i) })).not.toThrow();
  });

  it('refuses an own __proto__ member at any depth, naming it', () => {
    const parsed = JSON.parse('{"dataRequest":{"mappedFields":{"pg":{"__proto__":["id"]}}}}') as unknown;
    expect(refusal(parsed).fields).toEqual({
      'dataRequest.mappedFields.pg.__proto__': "dataRequest.mappedFields.pg.__proto__ '__proto__' is not allowed as a member name",
    });
    expect(Object.keys(refusal(JSON.parse('{"__proto__":{}}')).fields ?? {})).toEqual(['__proto__']);
    expect(Object.keys(refusal(JSON.parse('{"m":[{"__proto__":1}]}')).fields ?? {})).toEqual(['m.0.__proto__']);
  });

  it('lets constructor, prototype and toString through: they are ordinary names', () => {
    expect(() => assertBodyWithinLimits(JSON.parse('{"constructor":{"prototype":{"toString":1}}}'))).not.toThrow();
  });

  it('cuts long member names in the path it reports', () => {
    const name = 'n'.repeat(10_000);
    const error = refusal(JSON.parse(`{"${name}":${JSON.stringify(nestedObjects(BODY_LIMITS.maxDepth))}}`));
    expect(Object.keys(error.fields ?? {})[0].startsWith(`${'n'.repeat(64)}….a.a`)).toBe(true);
  });
});
