import { describe, expect, it } from 'vitest';
import { compactJson as encodeJson, jsonString as encodeString } from './json-text.js';
import { jsonStringBodyBytes, NOT_TEXT, writeCompactJson, writeJsonStringBody } from './json-bytes.js';

const body = (bytes: Buffer, asciiOnly = false): string | typeof NOT_TEXT => {
  const out = Buffer.alloc(bytes.length * 6 + 2);
  const end = writeJsonStringBody(bytes, 0, bytes.length, out, 0, asciiOnly);
  return end === NOT_TEXT ? NOT_TEXT : out.toString('utf8', 0, end);
};

const asJsonString = (text: string): string | typeof NOT_TEXT => {
  const written = body(Buffer.from(text, 'utf8'));
  return written === NOT_TEXT ? NOT_TEXT : '"' + written + '"';
};

describe('JSON string bodies written from UTF-8 bytes', () => {
  it('escapes every ASCII character exactly as JSON.stringify does', () => {
    for (let c = 0; c < 0x80; c++) {
      const text = `a${String.fromCharCode(c)}b`;
      expect(asJsonString(text)).toBe(JSON.stringify(text));
    }
  });

  it('copies non-ASCII text as its UTF-8 bytes, emoji and line separators included', () => {
    for (const text of ['ção ü', '😀👍🏽', '\u2028\u2029', '\u00a0\u00ff\u0100', 'a\u0000😀\u001f"\\\u007f€']) {
      expect(asJsonString(text)).toBe(JSON.stringify(text));
      expect(asJsonString(text)).toBe(encodeString(text));
    }
  });

  it('matches JSON.stringify on random text mixing escapes, ASCII and 2- to 4-byte characters', () => {
    const alphabet = ['a', 'Z', ' ', '"', '\\', '\n', '\t', '\u0001', '\u001f', '\u007f', 'é', '€', '😀', '\u2028', '/'];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let k = 0; k < 500; k++) {
      let text = '';
      // Short values are copied byte by byte, long ones in runs between escapes.
      for (let i = random(k % 2 === 0 ? 40 : 600); i > 0; i--) text += alphabet[random(alphabet.length)];
      expect(asJsonString(text)).toBe(JSON.stringify(text));
      expect(jsonStringBodyBytes(Buffer.from(text), 0, Buffer.byteLength(text))).toBe(Buffer.byteLength(JSON.stringify(text)) - 2);
    }
  });

  it('declines bytes that are not valid UTF-8, which decoding would have replaced', () => {
    for (const hex of ['ff', 'c328', 'eda080', 'f4908080', 'c0af', 'e282', '41e28228']) {
      expect(body(Buffer.from(hex, 'hex'))).toBe(NOT_TEXT);
      expect(body(Buffer.concat([Buffer.from('"a"'.repeat(200)), Buffer.from(hex, 'hex')]))).toBe(NOT_TEXT);
    }
  });

  it('declines any non-ASCII byte where the driver decodes as latin1 or ascii', () => {
    expect(body(Buffer.from('é', 'utf8'), true)).toBe(NOT_TEXT);
    expect(body(Buffer.from('plain "quoted"', 'utf8'), true)).toBe('plain \\"quoted\\"');
  });
});

describe('compact JSON written from bytes', () => {
  it('drops whitespace outside strings exactly as encodeJson does', () => {
    for (const text of [
      '{ "big": 12345678901234567890, "s": "a b" ,\n "n":[1, 2.50] }',
      '[ "\\" still in", "tab\tinside", "é 😀" ]',
      '"unterminated \\',
      '\t\r\n 1 ',
      '{}',
    ]) {
      const bytes = Buffer.from(text, 'utf8');
      const out = Buffer.alloc(bytes.length);
      expect(out.toString('utf8', 0, writeCompactJson(bytes, 0, bytes.length, out, 0))).toBe(encodeJson(text));
    }
  });
});
