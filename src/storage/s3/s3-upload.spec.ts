import { describe, expect, it } from 'vitest';
import { FetCode } from '../../engine/errors/fet-code.js';
import { StorageError } from '../storage.error.js';
import { S3ObjectStore, type S3Client } from './s3-object-store.js';

type Call = { op: string; objectName?: string; part?: number; bytes?: number };

/** Records calls; `uploadPart` can be held open to observe backpressure. */
class FakeS3 {
  readonly calls: Call[] = [];
  readonly objects = new Map<string, Buffer>();
  private readonly parts = new Map<number, Buffer>();
  holdParts = false;
  private released: (() => void)[] = [];
  inFlight = 0;
  maxInFlight = 0;
  failPart?: number;
  failWith: Error = Object.assign(new Error('Access Denied for AKIDSECRETACCESS with key s3cr3t-KEY'), { code: 'AccessDenied' });

  release(): void {
    const waiting = this.released;
    this.released = [];
    for (const go of waiting) go();
  }

  get client(): S3Client {
    const fake = {
      putObject: async (_bucket: string, objectName: string, body: Buffer) => {
        this.calls.push({ op: 'put', objectName, bytes: body.length });
        this.objects.set(objectName, Buffer.from(body));
        return { etag: 'e', versionId: null };
      },
      initiateNewMultipartUpload: async (_bucket: string, objectName: string) => {
        this.calls.push({ op: 'initiate', objectName });
        return 'upload-1';
      },
      uploadPart: async (config: { objectName: string; partNumber: number }, body: Buffer) => {
        this.calls.push({ op: 'part', objectName: config.objectName, part: config.partNumber, bytes: body.length });
        this.inFlight += 1;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        try {
          if (this.holdParts) await new Promise<void>((resolve) => this.released.push(resolve));
          if (config.partNumber === this.failPart) throw this.failWith;
          this.parts.set(config.partNumber, Buffer.from(body));
          return { etag: `etag-${config.partNumber}`, key: config.objectName, part: config.partNumber };
        } finally {
          this.inFlight -= 1;
        }
      },
      completeMultipartUpload: async (_bucket: string, objectName: string, _id: string, etags: { part: number; etag?: string }[]) => {
        this.calls.push({ op: 'complete', objectName });
        this.objects.set(objectName, Buffer.concat(etags.map((e) => this.parts.get(e.part) as Buffer)));
        return { etag: 'e', versionId: null };
      },
      abortMultipartUpload: async () => {
        this.calls.push({ op: 'abort' });
        throw Object.assign(new Error('The specified method is not allowed against this resource.'), { code: 'MethodNotAllowed' });
      },
    };
    return fake as unknown as S3Client;
  }
}

const PART = 1000;

function storeWith(fake: FakeS3, keyPrefix = 'tenant-a/'): S3ObjectStore {
  return new S3ObjectStore(
    {
      endPoint: 'unused',
      useSSL: false,
      accessKey: 'AKIDSECRETACCESS',
      secretKey: 's3cr3t-KEY',
      bucket: 'results',
      region: 'us-east-1',
      keyPrefix,
      partSizeBytes: PART,
    },
    { client: fake.client, minPartSizeBytes: 1 },
  );
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('S3 upload', () => {
  it('sends an object smaller than one part as one PUT under prefix + key', async () => {
    const fake = new FakeS3();
    const upload = await storeWith(fake).beginUpload('external-data/j.json');
    await upload.write(Buffer.alloc(999, 1));
    await upload.complete();
    expect(fake.calls).toEqual([{ op: 'put', objectName: 'tenant-a/external-data/j.json', bytes: 999 }]);
  });

  it('sends larger objects as ordered parts of exactly partSize, the last one shorter', async () => {
    const fake = new FakeS3();
    const upload = await storeWith(fake).beginUpload('external-data/j.json');
    const body = Buffer.from(Array.from({ length: 3500 }, (_, i) => i % 251));
    for (let offset = 0; offset < body.length; offset += 333) await upload.write(body.subarray(offset, offset + 333));
    await upload.complete();
    expect(fake.calls.map((c) => [c.op, c.part, c.bytes])).toEqual([
      ['initiate', undefined, undefined],
      ['part', 1, 1000],
      ['part', 2, 1000],
      ['part', 3, 1000],
      ['part', 4, 500],
      ['complete', undefined, undefined],
    ]);
    expect(fake.objects.get('tenant-a/external-data/j.json')?.equals(body)).toBe(true);
  });

  it('keeps one part on the wire: the writer waits when the next part is full', async () => {
    const fake = new FakeS3();
    fake.holdParts = true;
    const upload = await storeWith(fake).beginUpload('k.json');
    await upload.write(Buffer.alloc(PART)); // part 1 goes out and is held
    await tick();
    let secondDone = false;
    const second = upload.write(Buffer.alloc(PART)).then(() => (secondDone = true));
    await tick();
    await tick();
    expect(secondDone).toBe(false);
    expect(fake.calls.filter((c) => c.op === 'part')).toHaveLength(1);
    fake.release();
    await tick();
    fake.release();
    await second;
    fake.holdParts = false;
    fake.release();
    await upload.complete();
    expect(fake.maxInFlight).toBe(1);
    expect(fake.calls.filter((c) => c.op === 'part').map((c) => c.part)).toEqual([1, 2]);
  });

  it('reports a failed part on the next call, with no credentials in the message, and never completes', async () => {
    const fake = new FakeS3();
    fake.failPart = 1;
    const upload = await storeWith(fake).beginUpload('k.json');
    await upload.write(Buffer.alloc(PART));
    const error = (await upload.write(Buffer.alloc(PART)).catch((e: unknown) => e)) as StorageError;
    expect(error).toBeInstanceOf(StorageError);
    expect(error.code).toBe(FetCode.StorageFailed);
    expect(error.message).toContain('AccessDenied');
    expect(error.message).toContain('results/tenant-a/k.json');
    expect(error.message).not.toMatch(/AKIDSECRETACCESS|s3cr3t-KEY/);
    await expect(upload.complete()).rejects.toBe(error);
    await upload.abort();
    expect(fake.calls.map((c) => c.op)).toEqual(['initiate', 'part', 'abort']);
    expect(fake.objects.size).toBe(0);
  });

  it('aborts a multipart upload, tolerating a server without AbortMultipartUpload', async () => {
    const fake = new FakeS3();
    const upload = await storeWith(fake).beginUpload('k.json');
    await upload.write(Buffer.alloc(2500));
    await expect(upload.abort()).resolves.toBeUndefined();
    await expect(upload.complete()).rejects.toThrow(/aborted/);
    expect(fake.calls.at(-1)?.op).toBe('abort');
    expect(fake.objects.size).toBe(0);
  });

  it('refuses part sizes S3 would reject', () => {
    expect(
      () =>
        new S3ObjectStore({
          endPoint: 'x',
          useSSL: false,
          accessKey: '',
          secretKey: '',
          bucket: 'b',
          region: 'r',
          keyPrefix: '',
          partSizeBytes: 1024,
        }),
    ).toThrow(/at least/);
  });
});
