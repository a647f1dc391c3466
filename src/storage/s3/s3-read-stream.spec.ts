import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FetCode } from '../../engine/errors/fet-code.js';
import { StorageError } from '../storage.error.js';
import { S3ObjectStore, type S3Client } from './s3-object-store.js';

const SECRETS = { accessKey: 'AKIDSECRETACCESS', secretKey: 's3cr3t-KEY' };

/** A store over a fake client whose HEAD and GET answer as given. */
function storeWith(stat: () => Promise<{ size: number }>, get: () => Promise<Readable>): S3ObjectStore {
  const client = { statObject: stat, getObject: get } as unknown as S3Client;
  return new S3ObjectStore(
    { endPoint: 'unused', useSSL: false, ...SECRETS, bucket: 'results', region: 'us-east-1', keyPrefix: 'tenant-a/', partSizeBytes: 1000 },
    { client, minPartSizeBytes: 1 },
  );
}

/** What the minio client's GET resolves to: the response stream, with its headers. */
function response(body: string, contentLength = Buffer.byteLength(body)): Readable {
  const stream = Object.assign(new PassThrough(), { headers: { 'content-length': String(contentLength) } });
  stream.end(body);
  return stream;
}

describe('S3ObjectStore.readStream', () => {
  it('answers the GET stream with the size HEAD gave', async () => {
    const { stream, sizeBytes } = await storeWith(
      async () => ({ size: 5 }),
      async () => response('hello'),
    ).readStream('k.json');
    expect(sizeBytes).toBe(5);
    expect((await stream.toArray()).join('')).toBe('hello');
  });

  it('refuses an object replaced between HEAD and GET, releasing the GET', async () => {
    const body = response('a longer body', 13);
    const error = await storeWith(
      async () => ({ size: 5 }),
      async () => body,
    )
      .readStream('k.json')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: FetCode.StorageFailed, message: expect.stringMatching(/changed while it was opened/) });
    expect(body.destroyed).toBe(true);
  });

  it.each<[string, { code?: string; message?: string }, FetCode]>([
    ['a missing object', { code: 'NotFound' }, FetCode.NotFound],
    ['a refused connection', { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 10.0.0.5:9000' }, FetCode.ServiceUnavailable],
    ['S3 asking to slow down', { code: 'SlowDown', message: 'Please reduce your request rate.' }, FetCode.ServiceUnavailable],
    ['the idle timeout', { message: 'no response from S3 for 120000 ms' }, FetCode.ServiceUnavailable],
    ['a refusal', { code: 'AccessDenied', message: `Access Denied for ${SECRETS.accessKey}` }, FetCode.StorageFailed],
  ])('maps %s to its FET code, naming no credentials', async (_, failure, code) => {
    const fail = async () => {
      throw Object.assign(new Error(failure.message ?? ''), failure);
    };
    const error = (await storeWith(fail, async () => response('x'))
      .readStream('k.json')
      .catch((e: unknown) => e)) as StorageError;
    expect(error).toBeInstanceOf(StorageError);
    expect(error.code).toBe(code);
    expect(error.message).not.toContain(SECRETS.accessKey);
  });
});
