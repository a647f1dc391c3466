import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Base64StreamDecoder, MalformedBase64Error } from './base64-stream-decoder.js';

/** Decodes `text` cut at `cuts` (offsets, any order). */
function decode(text: string, cuts: readonly number[] = []): Buffer {
  const at = [...new Set(cuts.map((cut) => Math.min(cut, text.length)))].sort((a, b) => a - b);
  const decoder = new Base64StreamDecoder();
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, text.length]) {
    out.push(Buffer.from(decoder.write(Buffer.from(text.slice(from, cut), 'latin1'))));
    from = cut;
  }
  out.push(decoder.end());
  return Buffer.concat(out);
}

describe('Base64StreamDecoder', () => {
  it('gives back the bytes of any standard base64 text however it is cut', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), fc.array(fc.nat({ max: 170 }), { maxLength: 8 }), (bytes, cuts) => {
        const whole = Buffer.from(bytes);
        expect(decode(whole.toString('base64'), cuts)).toEqual(whole);
      }),
      { seed: 20261202, numRuns: 500 },
    );
  });

  it('tolerates trailing newlines, carriage returns and spaces, even cut apart from the text', () => {
    const text = Buffer.from('hello, world').toString('base64');
    expect(decode(`${text}\r\n \n`, [text.length, text.length + 1]).toString()).toBe('hello, world');
    expect(decode('YQ==\n', [3]).toString()).toBe('a');
    expect(decode('').length).toBe(0);
    expect(decode('\n').length).toBe(0);
  });

  it.each([
    ['a URL-safe character', '-_8A'],
    ['a foreign character in the middle', 'YWJj*ZGVm'],
    ['a NUL', 'YWJj\0'],
    ['whitespace inside the text', 'YWJj\nZGVm'],
    ['a space before the padding', 'YQ =='],
    ['padding in the middle', 'YQ==YWJj'],
    ['three padding characters', 'YQ==='],
    ['padding on a full group', 'YWJj='],
    ['a short last group without padding', 'YWJjZA'],
    ['a single character', 'Y'],
    ['data after trailing whitespace', 'YWJj\nYWJj'],
  ])('refuses %s', (_, text) => {
    for (const cuts of [[], [1], [2, 3], Array.from({ length: text.length }, (__, i) => i)]) {
      expect(() => decode(text, cuts)).toThrow(MalformedBase64Error);
    }
  });
});
