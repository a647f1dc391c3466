import { describe, expect, it } from 'vitest';
import { acceptedRequestId, requestIdFor } from './request-id.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it.each(['abc', 'a', 'x'.repeat(128), 'trace.id:42-b_c', '0190a000-0000-7000-8000-000000000001'])('keeps the sane id %j', (id) => {
    expect(acceptedRequestId(id)).toBe(id);
    expect(requestIdFor(id)).toBe(id);
  });

  it.each([
    ['empty', ''],
    ['129 characters', 'x'.repeat(129)],
    ['with a space', 'a b'],
    ['with CR/LF', 'a\r\nb'],
    ['with a quote', 'a"b'],
    ['with a brace', '{"level":50}'],
    ['not ASCII', 'idé'],
    ['a NUL', 'a\u0000b'],
  ])('refuses an id %s and gives a new v7 one instead', (_what, hostile) => {
    expect(acceptedRequestId(hostile)).toBeUndefined();
    const id = requestIdFor(hostile);
    expect(id).toMatch(UUID_V7);
    expect(id).not.toBe(hostile);
  });

  it('refuses repeated headers (Node gives them as a list) and a missing one', () => {
    expect(acceptedRequestId(['a', 'b'])).toBeUndefined();
    expect(acceptedRequestId(undefined)).toBeUndefined();
  });

  it('generates a different, time-ordered id each time', () => {
    const ids = Array.from({ length: 50 }, () => requestIdFor(undefined));
    expect(new Set(ids).size).toBe(50);
    expect([...ids].sort()).toEqual(ids);
  });
});
