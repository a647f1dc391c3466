import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { Client } from 'minio';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FetCode } from '../../src/engine/errors/fet-code.js';
import { AppConfigModule } from '../../src/config/config.module.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { OBJECT_STORE, type ObjectStore } from '../../src/storage/object-store.port.js';
import { ResultStorageService, type ResultSink } from '../../src/storage/result-storage.service.js';
import { S3ObjectStore } from '../../src/storage/s3/s3-object-store.js';
import { StorageError } from '../../src/storage/storage.error.js';
import { StorageModule } from '../../src/storage/storage.module.js';
import { startS3rver, type S3rverHandle } from '../helpers/s3rver.js';

const MiB = 1024 * 1024;
const PREFIX = 'tenant-a/';
// Not the bucket the helper creates: StorageModule must create it at init.
const BUCKET = 'fetcher-results';

/** Writes `total` bytes of JSON-ish text in 16 KiB strings, returning the exact plaintext. */
async function writeJson(sink: ResultSink, total: number): Promise<Buffer> {
  const row = '{"id":9007199254740993,"label":"ação ✓","amount":"100.50"},';
  const block = row.repeat(Math.ceil((16 * 1024) / Buffer.byteLength(row)));
  const pieces: Buffer[] = [];
  let written = 0;
  while (written < total) {
    const piece = Buffer.from(block).subarray(0, Math.min(Buffer.byteLength(block), total - written));
    await sink.write(piece);
    pieces.push(piece);
    written += piece.length;
  }
  return Buffer.concat(pieces);
}

async function physicalObject(client: Client, key: string): Promise<{ size: number; etag: string } | undefined> {
  try {
    const stat = await client.statObject(BUCKET, key);
    return { size: stat.size, etag: stat.etag };
  } catch (error) {
    if ((error as { code?: string }).code === 'NotFound') return undefined;
    throw error;
  }
}

describe('result storage on S3 (s3rver)', () => {
  let s3: S3rverHandle;
  let dataDir: string;
  let moduleRef: TestingModule;
  let service: ResultStorageService;
  let store: ObjectStore;
  let raw: Client;

  beforeAll(async () => {
    s3 = await startS3rver({ bucket: 'helper-bucket' });
    dataDir = await mkdtemp(join(tmpdir(), 'fetcher-s3-spec-'));
    const config = loadAppConfig({
      DATA_DIR: dataDir,
      APP_ENC_KEY: randomBytes(32).toString('base64'),
      S3_ENDPOINT: s3.endPoint,
      S3_PORT: String(s3.port),
      S3_USE_SSL: 'false',
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_BUCKET: BUCKET,
      S3_KEY_PREFIX: PREFIX,
      S3_PART_SIZE_MB: '5',
    });
    moduleRef = await Test.createTestingModule({ imports: [AppConfigModule.forRoot(config), StorageModule] }).compile();
    await moduleRef.init();
    service = moduleRef.get(ResultStorageService);
    store = moduleRef.get<ObjectStore>(OBJECT_STORE);
    raw = new Client({
      endPoint: s3.endPoint,
      port: s3.port,
      useSSL: false,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      region: 'us-east-1',
      pathStyle: true,
    });
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Counts the minio calls the store makes, still passing them through to s3rver. */
  function spyOnUploads() {
    return {
      put: vi.spyOn(Client.prototype, 'putObject'),
      initiate: vi.spyOn(Client.prototype, 'initiateNewMultipartUpload'),
      part: vi.spyOn(Client.prototype, 'uploadPart'),
      complete: vi.spyOn(Client.prototype, 'completeMultipartUpload'),
    };
  }

  afterAll(async () => {
    await moduleRef?.close();
    await s3?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates the configured bucket at init and answers ping', async () => {
    expect(store).toBeInstanceOf(S3ObjectStore);
    expect(await raw.bucketExists(BUCKET)).toBe(true);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('round-trips a small result with one PUT, under prefix + path, returning the path without prefix', async () => {
    const calls = spyOnUploads();
    const sink = await service.openSink('job-small', 256 * MiB);
    await sink.write('{"crm":{"customers":[]}}');
    const stored = await sink.finish();

    expect(stored.path).toBe('external-data/job-small.json');
    expect(calls.put).toHaveBeenCalledTimes(1);
    expect(calls.put.mock.calls[0]?.[1]).toBe(`${PREFIX}external-data/job-small.json`);
    expect(calls.initiate).not.toHaveBeenCalled();
    expect(await physicalObject(raw, `${PREFIX}external-data/job-small.json`)).toBeDefined();
    expect(await physicalObject(raw, 'external-data/job-small.json')).toBeUndefined();
    expect(await store.exists(stored.path)).toBe(true);
    const opened = await service.open(stored.path);
    expect(opened.plaintext.toString()).toBe('{"crm":{"customers":[]}}');
    expect(opened.hmac).toBe(stored.hmac);
  });

  it('round-trips a ~20 MiB result as a multipart upload of 5 MiB parts', async () => {
    const calls = spyOnUploads();
    const sink = await service.openSink('job-large', 256 * MiB);
    const plaintext = await writeJson(sink, 20 * MiB + 12_345);
    const stored = await sink.finish();

    expect(stored.sizeBytes).toBe(plaintext.length);
    const object = await physicalObject(raw, `${PREFIX}${stored.path}`);
    // base64 of nonce ‖ ciphertext ‖ tag: ~26.7 MiB of text → five full 5 MiB parts and a short one.
    expect(object?.size).toBe(Math.ceil((plaintext.length + 28) / 3) * 4);
    expect(calls.put).not.toHaveBeenCalled();
    expect(calls.initiate).toHaveBeenCalledTimes(1);
    expect(calls.part.mock.calls.map(([part, body]) => [part.partNumber, (body as Buffer).length])).toEqual([
      [1, 5 * MiB],
      [2, 5 * MiB],
      [3, 5 * MiB],
      [4, 5 * MiB],
      [5, 5 * MiB],
      [6, (object?.size ?? 0) - 25 * MiB],
    ]);
    expect(calls.complete).toHaveBeenCalledTimes(1);
    const opened = await service.open(stored.path);
    expect(opened.plaintext.equals(plaintext)).toBe(true);
    expect(opened.hmac).toBe(stored.hmac);
    expect(opened.sha256).toBe(stored.sha256);
  });

  it('streams a stored object with its size (HEAD + GET), and opens it as a verified plaintext stream', async () => {
    const sink = await service.openSink('job-streamed', 256 * MiB);
    const plaintext = await writeJson(sink, 6 * MiB + 321);
    const stored = await sink.finish();

    const object = await service.readStoredStream(stored.path);
    expect(object.sizeBytes).toBe((await physicalObject(raw, `${PREFIX}${stored.path}`))?.size);
    const chunks: Buffer[] = [];
    for await (const chunk of object.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(await service.readStored(stored.path))).toBe(true);

    const opened = await service.openStream(stored.path, stored, stored.keyVersion);
    const out: Buffer[] = [];
    for await (const chunk of opened.plaintext) out.push(chunk as Buffer);
    expect(Buffer.concat(out).equals(plaintext)).toBe(true);

    await expect(store.readStream('external-data/job-never-stored.json')).rejects.toMatchObject({ code: FetCode.NotFound });
    await expect(service.openStream(stored.path, stored, 'v-unknown')).rejects.toThrow(
      /key version v-unknown, which is not configured: set APP_ENC_KEY_v-unknown/,
    );
  });

  it('leaves no object after aborting a multipart upload (s3rver has no AbortMultipartUpload)', async () => {
    const calls = spyOnUploads();
    const abort = vi.spyOn(Client.prototype, 'abortMultipartUpload');
    const sink = await service.openSink('job-aborted', 256 * MiB);
    await writeJson(sink, 12 * MiB);
    expect(calls.part.mock.calls.length).toBeGreaterThanOrEqual(2);
    await expect(sink.abort()).resolves.toBeUndefined();
    expect(abort).toHaveBeenCalledTimes(1);
    await expect(abort.mock.results[0]?.value).rejects.toMatchObject({ code: 'MethodNotAllowed' });
    expect(await physicalObject(raw, `${PREFIX}external-data/job-aborted.json`)).toBeUndefined();
    await expect(service.readStored('external-data/job-aborted.json')).rejects.toMatchObject({ code: FetCode.NotFound });
  });

  it('leaves no object when the result passes the size limit after several parts', async () => {
    const calls = spyOnUploads();
    const sink = await service.openSink('job-too-large', 9 * MiB);
    const error = await writeJson(sink, 10 * MiB).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: FetCode.ResultTooLarge });
    expect(calls.part.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.complete).not.toHaveBeenCalled();
    await sink.abort();
    expect(await physicalObject(raw, `${PREFIX}external-data/job-too-large.json`)).toBeUndefined();
  });

  it('stages an attempt under its own key and publishes it by a server-side move', async () => {
    const attempt = { attempt: 2, workerId: 'host:123:abcd1234' };
    const sink = await service.openSink('job-staged', 256 * MiB, attempt);
    const plaintext = await writeJson(sink, 7 * MiB);
    const stored = await sink.finish();
    expect(stored.path).toBe('external-data/job-staged.json');
    const staging = `${PREFIX}external-data/.attempts/job-staged/2-host_123_abcd1234.json`;
    expect(await physicalObject(raw, staging)).toBeDefined();
    expect(await physicalObject(raw, `${PREFIX}external-data/job-staged.json`)).toBeUndefined();

    await sink.publish();
    expect(await physicalObject(raw, staging)).toBeUndefined();
    const opened = await service.open(stored.path);
    expect(opened.plaintext.equals(plaintext)).toBe(true);
    expect(opened.hmac).toBe(stored.hmac);
  });

  it('deletes a finished attempt it never published, and a dead attempt by its claim', async () => {
    const attempt = { attempt: 1, workerId: 'w1' };
    const sink = await service.openSink('job-unpublished', 256 * MiB, attempt);
    await writeJson(sink, MiB);
    await sink.finish();
    const staging = `${PREFIX}external-data/.attempts/job-unpublished/1-w1.json`;
    expect(await physicalObject(raw, staging)).toBeDefined();
    await sink.abort();
    expect(await physicalObject(raw, staging)).toBeUndefined();

    const orphan = await service.openSink('job-orphan', 256 * MiB, attempt);
    await writeJson(orphan, MiB);
    await orphan.finish();
    await service.discardAttempt('job-orphan', attempt);
    expect(await physicalObject(raw, `${PREFIX}external-data/.attempts/job-orphan/1-w1.json`)).toBeUndefined();
    await expect(service.discardAttempt('job-orphan', attempt)).resolves.toBeUndefined();
  });

  it('fails a write with a StorageError naming no credentials when the server is down', async () => {
    const doomed = await startS3rver({ bucket: 'doomed' });
    const secrets = { accessKey: 'AKIAEXAMPLEACCESS', secretKey: 'example-secret-value-123' };
    const downStore = new S3ObjectStore({
      endPoint: doomed.endPoint,
      port: doomed.port,
      useSSL: false,
      ...secrets,
      bucket: 'doomed',
      region: 'us-east-1',
      keyPrefix: PREFIX,
      partSizeBytes: 5 * MiB,
    });
    const upload = await downStore.beginUpload('external-data/job-down.json');
    await upload.write(Buffer.alloc(MiB, 0x41));
    await doomed.close();

    const error = (await upload.write(Buffer.alloc(5 * MiB, 0x41)).catch((e: unknown) => e)) as StorageError;
    expect(error).toBeInstanceOf(StorageError);
    expect(error.code).toBe(FetCode.StorageFailed);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).toContain('doomed/tenant-a/external-data/job-down.json');
    expect(error.message).not.toContain(secrets.accessKey);
    expect(error.message).not.toContain(secrets.secretKey);
    await expect(upload.abort()).resolves.toBeUndefined();
    await expect(downStore.ping()).rejects.toBeInstanceOf(StorageError);
    // A reader may simply retry: the server is unavailable, not the request wrong.
    const readError = (await downStore.readStream('external-data/job-down.json').catch((e: unknown) => e)) as StorageError;
    expect(readError).toBeInstanceOf(StorageError);
    expect(readError.code).toBe(FetCode.ServiceUnavailable);
    expect(readError.message).not.toContain(secrets.secretKey);
    await downStore.close();
  });

  it('stages a per-table result’s parts under the attempt, publishes them with the manifest, and discards a dead attempt’s folder', async () => {
    const jobId = `0190f3c2-0000-7000-8000-${randomBytes(6).toString('hex')}`;
    const names = async (prefix: string): Promise<string[]> => {
      const found: string[] = [];
      for await (const item of raw.listObjectsV2(BUCKET, `${PREFIX}${prefix}`, true)) found.push((item as { name: string }).name);
      return found.sort();
    };
    const csv = { format: 'csv', compression: 'none' } as const;
    const write = async (upload: { write(chunk: Buffer): Promise<void>; complete(): Promise<void> }, text: string) => {
      await upload.write(Buffer.from(text));
      await upload.complete();
    };

    const staged = service.stageResult(jobId, { attempt: 1, workerId: 'w:1' });
    for (const table of ['orders', 'public.items'])
      await write(staged.parts.openPart({ datasource: 'pg', table, ...csv, fileName: `${table}.csv` }).upload, table);
    await write(staged.parts.openManifest(), '{"version":1}');
    expect(await names(`external-data/${jobId}`)).toEqual([]);
    expect(await names(`external-data/.attempts/${jobId}/`)).toEqual([
      `${PREFIX}external-data/.attempts/${jobId}/1-w_1.json`,
      `${PREFIX}external-data/.attempts/${jobId}/1-w_1/pg/orders.csv`,
      `${PREFIX}external-data/.attempts/${jobId}/1-w_1/pg/public.items.csv`,
    ]);
    await staged.publish();
    expect(await names(`external-data/${jobId}`)).toEqual([
      `${PREFIX}external-data/${jobId}.json`,
      `${PREFIX}external-data/${jobId}/pg/orders.csv`,
      `${PREFIX}external-data/${jobId}/pg/public.items.csv`,
    ]);
    expect(await names(`external-data/.attempts/${jobId}/`)).toEqual([]);

    // A worker that died after writing parts: the recovery's discard empties its folder.
    const dead = service.stageResult(jobId, { attempt: 2, workerId: 'w:2' });
    await write(dead.parts.openPart({ datasource: 'pg', table: 'orders', ...csv, fileName: 'orders.csv' }).upload, 'x');
    await write(dead.upload, '{}');
    expect(await names(`external-data/.attempts/${jobId}/`)).toHaveLength(2);
    await service.discardAttempt(jobId, { attempt: 2, workerId: 'w:2' });
    expect(await names(`external-data/.attempts/${jobId}/`)).toEqual([]);
    expect(await names(`external-data/${jobId}`)).toHaveLength(3);
  });
});
