import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Base64StreamEncoder } from './base64-stream.js';

/** Encodes `chunks` through the stream encoder, copying each answer before the next call reuses it. */
function streamed(prefix: Buffer, chunks: readonly Buffer[], last: Buffer): string {
  const encoder = new Base64StreamEncoder(prefix);
  let text = '';
  for (const chunk of chunks) text += encoder.push(chunk).toString('latin1');
  return text + encoder.end(last).toString('latin1');
}

describe('Base64StreamEncoder', () => {
  it('gives the base64 of the whole stream however it is cut, with padding only at the end', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 16 }),
        fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 12 }),
        fc.uint8Array({ maxLength: 5 }),
        (prefix, chunks, last) => {
          const parts = chunks.map((c) => Buffer.from(c));
          const whole = Buffer.concat([Buffer.from(prefix), ...parts, Buffer.from(last)]);
          expect(streamed(Buffer.from(prefix), parts, Buffer.from(last))).toBe(whole.toString('base64'));
        },
      ),
      { seed: 20261201, numRuns: 500 },
    );
  });

  it('does not depend on the caller keeping its chunk: a reused input buffer changes nothing', () => {
    const reused = Buffer.alloc(7);
    const encoder = new Base64StreamEncoder();
    let text = '';
    const expected: Buffer[] = [];
    for (let round = 0; round < 5; round++) {
      reused.fill(round * 31 + 1);
      expected.push(Buffer.from(reused));
      text += encoder.push(reused).toString('latin1');
    }
    text += encoder.end().toString('latin1');
    expect(text).toBe(Buffer.concat(expected).toString('base64'));
  });
});
