import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ObjectUpload } from '../../src/storage/object-store.port.js';
import { ResultSealer } from '../../src/engine/result/result-sealer.js';
import { S3ObjectStore, type S3Client } from '../../src/storage/s3/s3-object-store.js';

const MiB = 1024 * 1024;
const TOTAL = 100 * MiB;

/** Accepts and forgets every byte, so only the sealer's own memory shows. */
class CountingUpload implements ObjectUpload {
  bytes = 0;
  completed = false;
  async write(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
  }
  async complete(): Promise<void> {
    this.completed = true;
  }
  async abort(): Promise<void> {}
}

/** A minio stand-in that takes a little time per part and keeps nothing. */
function discardingS3(): { client: S3Client; bytes: () => number } {
  let bytes = 0;
  const client = {
    putObject: async (_b: string, _o: string, body: Buffer) => {
      bytes += body.length;
      return { etag: 'e', versionId: null };
    },
    initiateNewMultipartUpload: async () => 'id',
    uploadPart: async (config: { partNumber: number }, body: Buffer) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      bytes += body.length;
      return { etag: `e${config.partNumber}`, key: 'k', part: config.partNumber };
    },
    completeMultipartUpload: async () => ({ etag: 'e', versionId: null }),
    abortMultipartUpload: async () => undefined,
  };
  return { client: client as unknown as S3Client, bytes: () => bytes };
}

/** Seals `total` bytes of 16 KiB strings and returns the peak RSS growth over the starting RSS. */
async function peakRssGrowth(upload: ObjectUpload, total = TOTAL): Promise<number> {
  const sealer = new ResultSealer({ hmacKey: randomBytes(32), encryptionKey: randomBytes(32), maxPlaintextBytes: total, upload });
  const row = '{"id":123456789,"name":"row name with some text","amount":"100.50","at":"2024-01-02T10:00:00.123456Z"},';
  const piece = row.repeat(Math.floor((16 * 1024) / row.length));
  const pieceBytes = Buffer.byteLength(piece);
  const start = process.memoryUsage.rss();
  let peak = start;
  let written = 0;
  while (written + pieceBytes <= total) {
    // A fresh string each time, as a serializer would produce, not one interned constant.
    await sealer.write(piece.slice(0, -1) + ',');
    written += pieceBytes;
    if ((written & (MiB - 1)) < pieceBytes) peak = Math.max(peak, process.memoryUsage.rss());
  }
  const sealed = await sealer.finish();
  peak = Math.max(peak, process.memoryUsage.rss());
  expect(sealed.sizeBytes).toBe(written);
  expect(written).toBeGreaterThan(total - pieceBytes);
  return peak - start;
}

describe('sealing memory stays flat', () => {
  // Loading and compiling the code paths is not what is measured.
  beforeAll(async () => {
    await peakRssGrowth(new CountingUpload(), 4 * MiB);
  });

  it('grows RSS by far less than the 100 MiB result (counting upload)', async () => {
    const upload = new CountingUpload();
    const growth = await peakRssGrowth(upload);
    console.log(`[storage-memory] sealer → counting upload: 100 MiB sealed, peak RSS growth ${(growth / MiB).toFixed(1)} MiB`);
    expect(upload.completed).toBe(true);
    expect(upload.bytes).toBeGreaterThan((TOTAL * 4) / 3 - MiB);
    expect(growth).toBeLessThan(40 * MiB);
  });

  it('grows RSS by a few parts at most through the S3 upload (8 MiB parts, discarding client)', async () => {
    const fake = discardingS3();
    const store = new S3ObjectStore(
      {
        endPoint: 'unused',
        useSSL: false,
        accessKey: 'a',
        secretKey: 'b',
        bucket: 'b',
        region: 'r',
        keyPrefix: '',
        partSizeBytes: 8 * MiB,
      },
      { client: fake.client },
    );
    const growth = await peakRssGrowth(await store.beginUpload('external-data/mem.json'));
    console.log(`[storage-memory] sealer → S3 upload (8 MiB parts): 100 MiB sealed, peak RSS growth ${(growth / MiB).toFixed(1)} MiB`);
    expect(fake.bytes()).toBeGreaterThan((TOTAL * 4) / 3 - MiB);
    expect(growth).toBeLessThan(60 * MiB);
  });
});
