import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { deriveResultKeys, type ResultKeys } from '../crypto/key-derivation.js';
import { MemoryUpload } from './testing/memory-upload.js';
import { ResultSealer } from './result-sealer.js';
import {
  ResultStreamOpener,
  ResultVerificationError,
  sealedObjectBytes,
  type ExpectedPlaintext,
  type VerificationCheck,
} from './result-stream-opener.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const keys = deriveResultKeys(randomBytes(32));

/** JSON-ish text of `size` bytes, multi-byte characters included. */
function plaintextOf(size: number): Buffer {
  const row = Buffer.from('{"id":9007199254740993,"label":"ação ✓","amount":"100.50"},');
  const out = Buffer.alloc(size);
  for (let at = 0; at < size; at += row.length) row.copy(out, at);
  return out;
}

interface Sealed {
  readonly plaintext: Buffer;
  readonly stored: Buffer;
  readonly expected: ExpectedPlaintext;
}

/** Seals `plaintext` with the production sealer, written in 40 KiB pieces. */
async function seal(plaintext: Buffer, with_: ResultKeys = keys): Promise<Sealed> {
  const upload = new MemoryUpload();
  const sealer = new ResultSealer({ ...with_, maxPlaintextBytes: plaintext.length, upload });
  for (let at = 0; at < plaintext.length; at += 40 * KiB) await sealer.write(plaintext.subarray(at, at + 40 * KiB));
  const sealed = await sealer.finish();
  return { plaintext, stored: upload.body, expected: { sizeBytes: sealed.sizeBytes, hmac: sealed.hmac, sha256: sealed.sha256 } };
}

interface Opened {
  readonly out: Buffer;
  readonly error?: unknown;
}

/** Streams `chunks` through an opener into a collector; the error, if any, instead of a throw. */
async function open(chunks: readonly Buffer[], expected: ExpectedPlaintext, with_: ResultKeys = keys): Promise<Opened> {
  const received: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk);
      done();
    },
  });
  try {
    await pipeline(Readable.from(chunks, { objectMode: false }), new ResultStreamOpener(with_, expected), sink);
    return { out: Buffer.concat(received) };
  } catch (error) {
    return { out: Buffer.concat(received), error };
  }
}

function chunked(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

/** The stored object with its decoded bytes changed by `edit` (re-encoded, so still valid base64). */
function withDecoded(stored: Buffer, edit: (raw: Buffer) => Buffer): Buffer {
  return Buffer.from(edit(Buffer.from(stored.toString('latin1'), 'base64')).toString('base64'), 'latin1');
}

const flip = (at: (raw: Buffer) => number) => (raw: Buffer) => {
  const copy = Buffer.from(raw);
  const index = at(copy);
  copy[index] = (copy[index] as number) ^ 0x01;
  return copy;
};

describe('ResultStreamOpener', () => {
  it.each([0, 1, 2, 100, 64 * KiB + 7, 3 * MiB + 5])('round-trips a sealed result of %i bytes fed in 64 KiB chunks', async (size) => {
    const sealed = await seal(plaintextOf(size));
    expect(sealed.stored.length).toBe(sealedObjectBytes(size));
    const { out, error } = await open(chunked(sealed.stored, 64 * KiB), sealed.expected);
    expect(error).toBeUndefined();
    expect(out.equals(sealed.plaintext)).toBe(true);
  });

  it('round-trips a small result cut at every offset, and fed one byte at a time', async () => {
    const sealed = await seal(plaintextOf(90));
    for (let cut = 0; cut <= sealed.stored.length; cut += 1) {
      const { out, error } = await open([sealed.stored.subarray(0, cut), sealed.stored.subarray(cut)], sealed.expected);
      expect(error, `cut at ${cut}`).toBeUndefined();
      expect(out.equals(sealed.plaintext), `cut at ${cut}`).toBe(true);
    }
    const bytewise = await open(chunked(sealed.stored, 1), sealed.expected);
    expect(bytewise.out.equals(sealed.plaintext)).toBe(true);
  });

  it('round-trips a multi-MiB result fed in odd chunk sizes, and tolerates a trailing newline', async () => {
    const sealed = await seal(plaintextOf(5 * MiB + 3));
    for (const size of [4095, 16 * KiB + 1, 1 * MiB]) {
      const { out, error } = await open(chunked(Buffer.concat([sealed.stored, Buffer.from('\r\n')]), size), sealed.expected);
      expect(error).toBeUndefined();
      expect(out.equals(sealed.plaintext)).toBe(true);
    }
  });

  it('honours backpressure: a consumer that stops reading stops the source after a few chunks', async () => {
    const sealed = await seal(plaintextOf(4 * MiB));
    let pulled = 0;
    const source = new Readable({
      highWaterMark: 16 * KiB,
      read() {
        const chunk = sealed.stored.subarray(pulled, pulled + 16 * KiB);
        pulled += chunk.length;
        this.push(chunk.length > 0 ? chunk : null);
      },
    });
    const opener = new ResultStreamOpener(keys, sealed.expected);
    source.pipe(opener);
    // Nobody reads the opener: the pipe must stall once its buffers are full.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pulled).toBeLessThan(256 * KiB);
    const received: Buffer[] = [];
    for await (const chunk of opener) received.push(chunk as Buffer);
    expect(Buffer.concat(received).equals(sealed.plaintext)).toBe(true);
  });

  describe('refuses a result that does not match, never releasing its final bytes', () => {
    const size = 300 * KiB + 11;
    const cases: ReadonlyArray<
      readonly [
        string,
        VerificationCheck | readonly VerificationCheck[],
        (sealed: Sealed) => { stored?: Buffer; expected?: ExpectedPlaintext; keys?: ResultKeys },
      ]
    > = [
      [
        'a changed nonce byte',
        'authentication',
        (s) => ({
          stored: withDecoded(
            s.stored,
            flip(() => 3),
          ),
        }),
      ],
      [
        'a changed ciphertext byte',
        'authentication',
        (s) => ({
          stored: withDecoded(
            s.stored,
            flip((raw) => Math.floor(raw.length / 2)),
          ),
        }),
      ],
      [
        'a changed first ciphertext byte',
        'authentication',
        (s) => ({
          stored: withDecoded(
            s.stored,
            flip(() => 12),
          ),
        }),
      ],
      [
        'a changed tag byte',
        'authentication',
        (s) => ({
          stored: withDecoded(
            s.stored,
            flip((raw) => raw.length - 1),
          ),
        }),
      ],
      [
        'a foreign character in the text',
        'base64',
        (s) => ({ stored: Buffer.concat([s.stored.subarray(0, 5000), Buffer.from('*'), s.stored.subarray(5001)]) }),
      ],
      [
        'a URL-safe character near the end',
        'base64',
        (s) => ({
          stored: Buffer.concat([s.stored.subarray(0, s.stored.length - 10), Buffer.from('-'), s.stored.subarray(s.stored.length - 9)]),
        }),
      ],
      ['a truncated object (whole groups)', 'authentication', (s) => ({ stored: s.stored.subarray(0, s.stored.length - 8) })],
      ['a truncated object (inside a group)', 'base64', (s) => ({ stored: s.stored.subarray(0, s.stored.length - 1) })],
      [
        'extra bytes after the tag',
        ['size', 'authentication'],
        (s) => ({ stored: withDecoded(s.stored, (raw) => Buffer.concat([raw, Buffer.from('xyz')])) }),
      ],
      ['extra text after the end', ['base64', 'size'], (s) => ({ stored: Buffer.concat([s.stored, Buffer.from('AAAA')]) })],
      ['the wrong key', 'authentication', () => ({ keys: deriveResultKeys(randomBytes(32)) })],
      ['the wrong expected HMAC', 'hmac', (s) => ({ expected: { ...s.expected, hmac: 'ab'.repeat(32) } })],
      ['the wrong expected SHA-256', 'sha256', (s) => ({ expected: { ...s.expected, sha256: 'cd'.repeat(32) } })],
      ['a larger expected size', 'size', (s) => ({ expected: { ...s.expected, sizeBytes: s.expected.sizeBytes + 1 } })],
      ['a smaller expected size', 'size', (s) => ({ expected: { ...s.expected, sizeBytes: s.expected.sizeBytes - 1 } })],
    ];

    it.each(cases)('%s', async (_, check, tamper) => {
      const sealed = await seal(plaintextOf(size));
      const change = tamper(sealed);
      for (const chunkSize of [16 * KiB, 64 * KiB, 1 * MiB]) {
        const { out, error } = await open(
          chunked(change.stored ?? sealed.stored, chunkSize),
          change.expected ?? sealed.expected,
          change.keys ?? keys,
        );
        expect(error, `${chunkSize}-byte chunks`).toBeInstanceOf(ResultVerificationError);
        expect([check].flat(), (error as Error).message).toContain((error as ResultVerificationError).check);
        // Whatever came out before the failure, the end of the result never did.
        expect(out.length, `${chunkSize}-byte chunks`).toBeLessThan(sealed.plaintext.length);
        expect(JSON.stringify(error)).not.toContain(keys.hmacKey.toString('hex'));
      }
    });

    it('fails a tiny tampered result without releasing a single byte', async () => {
      const sealed = await seal(Buffer.from('{"a":1}'));
      const { out, error } = await open(
        [
          withDecoded(
            sealed.stored,
            flip((raw) => raw.length - 1),
          ),
        ],
        sealed.expected,
      );
      expect((error as ResultVerificationError).check).toBe('authentication');
      expect(out.length).toBe(0);
    });

    it('names an object too short to hold a nonce and a tag', async () => {
      const { out, error } = await open([Buffer.from('AAAA')], { sizeBytes: 0, hmac: '00'.repeat(32), sha256: '00'.repeat(32) });
      expect((error as ResultVerificationError).check).toBe('too-short');
      expect(out.length).toBe(0);
    });
  });
});
