import { randomBytes } from 'node:crypto';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CompressedOutput } from './compressed-output.js';

describe('CompressedOutput', () => {
  it.each([
    ['gzip', gunzipSync],
    ['zstd', zstdDecompressSync],
  ] as const)('hands on a %s stream of exactly what was written, one downstream write at a time', async (compression, decompress) => {
    const chunks: Buffer[] = [];
    let inFlight = 0;
    let most = 0;
    const output = new CompressedOutput(compression, {
      write: async (chunk) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        chunks.push(Buffer.from(chunk));
        inFlight--;
      },
    });
    const input = Array.from({ length: 40 }, () => randomBytes(64 * 1024));
    for (const chunk of input) await output.write(chunk);
    await output.write('and some text é');
    await output.end();
    expect(decompress(Buffer.concat(chunks)).equals(Buffer.concat([...input, Buffer.from('and some text é')]))).toBe(true);
    expect(most).toBe(1);
  });

  it('fails the writer with the downstream failure (the size limit), and its end too', async () => {
    const refusal = new Error('result over its limit');
    let written = 0;
    const output = new CompressedOutput('gzip', {
      write: async (chunk) => {
        written += chunk.length;
        if (written > 100_000) throw refusal;
      },
    });
    const writes = async () => {
      for (let i = 0; i < 100; i++) await output.write(randomBytes(64 * 1024));
    };
    await expect(writes()).rejects.toBe(refusal);
    await expect(output.end()).rejects.toBe(refusal);
  });

  it('refuses writes once aborted', async () => {
    const output = new CompressedOutput('gzip', { write: async () => undefined });
    output.abort();
    await expect(output.write('x')).rejects.toThrow('aborted');
  });
});
