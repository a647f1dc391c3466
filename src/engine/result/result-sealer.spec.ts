import { createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FetCode } from '../errors/fet-code.js';
import { ResultCodecError, ResultTooLargeError } from '../errors/engine-errors.js';
import { MemoryUpload } from './testing/memory-upload.js';
import { openResult } from './result-opener.js';
import { ResultSealer } from './result-sealer.js';

const master = randomBytes(32);
// Derived here with hkdfSync directly, not through the service's helper, so the test is independent.
const hkdf = (info: string) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, 32));
const hmacKey = hkdf('fetcher-external-hmac-v1');
const encryptionKey = hkdf('fetcher-storage-encryption-v1');

function sealer(upload: MemoryUpload, maxPlaintextBytes = 1024 * 1024 * 1024): ResultSealer {
  return new ResultSealer({ hmacKey, encryptionKey, maxPlaintextBytes, upload });
}

/** Writes `plaintext` in chunks whose sizes cycle through `sizes`. */
async function writeInChunks(target: ResultSealer, plaintext: Buffer, sizes: number[]): Promise<void> {
  let offset = 0;
  for (let i = 0; offset < plaintext.length; i += 1) {
    const size = sizes[i % sizes.length] as number;
    await target.write(plaintext.subarray(offset, offset + size));
    offset += size;
  }
}

function jsonLike(bytes: number): Buffer {
  const row = '{"id":12345678901234567,"name":"Zoë — ünïcode ✓","amount":"100.50","ok":true},';
  return Buffer.from(row.repeat(Math.ceil(bytes / Buffer.byteLength(row)))).subarray(0, bytes);
}

describe('ResultSealer', () => {
  const cases: [string, Buffer, number[]][] = [
    ['0 bytes', Buffer.alloc(0), [1]],
    ['1 byte', Buffer.from('{'), [1]],
    ['exactly 64 KiB', jsonLike(64 * 1024), [64 * 1024]],
    ['~3 MiB in irregular chunks', jsonLike(3 * 1024 * 1024 + 17), [1, 2, 3, 7, 65537, 4096, 5, 131071, 11]],
  ];

  it.each(cases)('round-trips %s: decrypts to the exact bytes, HMAC and SHA-256 over the plaintext', async (_name, plaintext, sizes) => {
    const upload = new MemoryUpload();
    const target = sealer(upload);
    await writeInChunks(target, plaintext, sizes);
    const sealed = await target.finish();

    expect(upload.completed).toBe(true);
    expect(upload.aborted).toBe(false);
    expect(sealed.sizeBytes).toBe(plaintext.length);
    expect(sealed.hmac).toBe(createHmac('sha256', hmacKey).update(plaintext).digest('hex'));
    expect(sealed.sha256).toBe(createHash('sha256').update(plaintext).digest('hex'));

    const opened = openResult(upload.body, master);
    expect(opened.plaintext.equals(plaintext)).toBe(true);
    expect(opened.hmac).toBe(sealed.hmac);
    expect(opened.sha256).toBe(sealed.sha256);
  });

  it('emits one continuous standard base64 text of nonce ‖ ciphertext ‖ tag, padded only at the end', async () => {
    const plaintext = jsonLike(700_001);
    const upload = new MemoryUpload();
    const target = sealer(upload);
    await writeInChunks(target, plaintext, [1, 2, 3, 7, 65537]);
    await target.finish();

    const text = upload.body.toString('latin1');
    const raw = Buffer.from(text, 'base64');
    expect(raw.toString('base64')).toBe(text);
    expect(text.slice(0, -2)).not.toContain('=');
    expect(upload.chunks.length).toBeGreaterThan(5);
    // Streamed in bounded pieces, not buffered into one blob.
    expect(upload.chunks.every((chunk) => chunk.length <= 100 * 1024)).toBe(true);

    // Independent decryption of the documented layout.
    const decipher = createDecipheriv('aes-256-gcm', encryptionKey, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const decrypted = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
    expect(decrypted.equals(plaintext)).toBe(true);
    expect(raw.length).toBe(12 + plaintext.length + 16);
  });

  it('counts UTF-8 bytes of strings, including characters split across the 64 KiB buffer boundary', async () => {
    const upload = new MemoryUpload();
    const target = sealer(upload);
    const parts = ['a'.repeat(65_535), '€😀ü', 'x'.repeat(70_000) + '😀', '"ok"'];
    for (const part of parts) await target.write(part);
    const sealed = await target.finish();
    const plaintext = Buffer.from(parts.join(''));
    expect(sealed.sizeBytes).toBe(plaintext.length);
    expect(openResult(upload.body, master).plaintext.equals(plaintext)).toBe(true);
  });

  it('gives a different object for the same plaintext (fresh nonce) with the same HMAC', async () => {
    const [a, b] = [new MemoryUpload(), new MemoryUpload()];
    const [sa, sb] = [sealer(a), sealer(b)];
    await sa.write('{"x":[]}');
    await sb.write('{"x":[]}');
    const [ra, rb] = [await sa.finish(), await sb.finish()];
    expect(a.body.equals(b.body)).toBe(false);
    expect(ra.hmac).toBe(rb.hmac);
  });

  it('refuses an object with one byte changed', async () => {
    const upload = new MemoryUpload();
    const target = sealer(upload);
    await target.write(jsonLike(10_000));
    await target.finish();
    const tampered = Buffer.from(upload.body);
    const at = 5_000;
    tampered[at] = tampered[at] === 0x41 ? 0x42 : 0x41;
    expect(() => openResult(tampered, master)).toThrow(ResultCodecError);
    expect(() => openResult(upload.body, randomBytes(32))).toThrow(/authentication/);
  });

  it('accepts exactly the limit', async () => {
    const upload = new MemoryUpload();
    const target = sealer(upload, 100);
    await target.write('x'.repeat(60));
    await target.write('y'.repeat(40));
    await expect(target.finish()).resolves.toMatchObject({ sizeBytes: 100 });
    expect(upload.completed).toBe(true);
  });

  it('trips at limit + 1 before passing the write on, and aborts the upload without completing it', async () => {
    const upload = new MemoryUpload();
    const target = sealer(upload, 100);
    await target.write('x'.repeat(60));
    const error = await target.write('y'.repeat(41)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultTooLargeError);
    expect((error as ResultTooLargeError).code).toBe(FetCode.ResultTooLarge);
    expect(target.sizeBytes).toBe(60);
    expect(upload.aborted).toBe(true);
    expect(upload.completed).toBe(false);
    await expect(target.finish()).rejects.toBe(error);
    await target.abort();
    expect(upload.completed).toBe(false);
  });

  it('trips on a large result long after the first bytes were uploaded', async () => {
    const upload = new MemoryUpload();
    const limit = 1024 * 1024;
    const target = sealer(upload, limit);
    const chunk = jsonLike(4000);
    let error: unknown;
    for (let written = 0; written <= limit; written += chunk.length) {
      error = await target.write(chunk).catch((e: unknown) => e);
      if (error) break;
    }
    expect((error as ResultTooLargeError).code).toBe(FetCode.ResultTooLarge);
    expect(upload.chunks.length).toBeGreaterThan(0);
    expect(upload.aborted).toBe(true);
    expect(upload.completed).toBe(false);
  });

  it('propagates a failing upload.write, aborts, and never completes', async () => {
    const upload = new MemoryUpload();
    upload.failOnWrite = 1;
    upload.failWith = new Error('disk full');
    const target = sealer(upload);
    const chunk = jsonLike(50_000);
    let error: unknown;
    for (let i = 0; i < 10 && !error; i += 1) error = await target.write(chunk).catch((e: unknown) => e);
    expect((error as Error).message).toBe('disk full');
    await expect(target.write('more')).rejects.toThrow('disk full');
    await expect(target.finish()).rejects.toThrow('disk full');
    expect(upload.aborted).toBe(true);
    expect(upload.completed).toBe(false);
  });

  it('aborts on request, never throws, and refuses later writes', async () => {
    const upload = new MemoryUpload();
    upload.abort = async () => {
      upload.aborted = true;
      throw new Error('abort failed too');
    };
    const target = sealer(upload);
    await target.write('{"a":');
    await expect(target.abort()).resolves.toBeUndefined();
    await expect(target.abort()).resolves.toBeUndefined();
    expect(upload.aborted).toBe(true);
    await expect(target.write('1}')).rejects.toThrow(/aborted/);
    expect(upload.completed).toBe(false);
  });

  it('rejects a write issued before the previous one settled instead of reordering bytes', async () => {
    const upload = new MemoryUpload();
    const target = sealer(upload);
    const first = target.write(jsonLike(200_000));
    await expect(target.write('x')).rejects.toThrow(/await each write/);
    await first;
  });
});
