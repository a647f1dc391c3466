import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { Client } from 'minio';
import type { S3Config } from '../../config/app-config.js';
import { FetCode } from '../../engine/errors/fet-code.js';
import type { ObjectReadStream, ObjectStore, ObjectUpload } from '../object-store.port.js';
import { assertSafeObjectKey, objectNotFound } from '../object-key.js';
import { StorageError } from '../storage.error.js';
import { describeS3Failure, isS3NotFound, isS3Unavailable, type S3Secrets } from './s3-failure.js';
import { S3Upload, type S3UploadClient } from './s3-upload.js';

/** The part of the minio client the store uses; tests substitute a fake. */
export type S3Client = S3UploadClient &
  Pick<Client, 'bucketExists' | 'makeBucket' | 'getObject' | 'statObject' | 'copyObject' | 'removeObject' | 'listObjectsV2'>;

/** S3 refuses smaller parts except the last one. */
export const S3_MIN_PART_BYTES = 5 * 1024 * 1024;

export interface S3ObjectStoreOptions {
  /** Injected client (tests). When absent the store builds a minio client from the config. */
  readonly client?: S3Client;
  /** A request idle for this long is cut, so a hung server fails the job instead of stalling it. */
  readonly requestIdleTimeoutMs?: number;
  /** Lowered only by unit tests with a fake client. */
  readonly minPartSizeBytes?: number;
}

/**
 * Results in an S3-compatible bucket through the minio client's low-level calls: one PUT for a
 * small object, otherwise a fresh multipart upload per attempt with one part buffered and at most
 * one in flight. `putObject(stream)` is never used (it buffers 528 MiB parts for unknown sizes and
 * resumes foreign uploads).
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly agent?: http.Agent;
  private readonly secrets: S3Secrets;

  constructor(
    private readonly config: S3Config,
    options: S3ObjectStoreOptions = {},
  ) {
    const minPart = options.minPartSizeBytes ?? S3_MIN_PART_BYTES;
    if (!Number.isSafeInteger(config.partSizeBytes) || config.partSizeBytes < minPart) {
      throw new RangeError(`S3 part size must be at least ${minPart} bytes (got ${config.partSizeBytes})`);
    }
    this.secrets = { accessKey: config.accessKey, secretKey: config.secretKey };
    if (options.client) {
      this.client = options.client;
    } else {
      const endpoint = parseEndpoint(config);
      this.agent = endpoint.useSSL ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
      this.client = new Client({
        endPoint: endpoint.host,
        port: endpoint.port,
        useSSL: endpoint.useSSL,
        accessKey: config.accessKey,
        secretKey: config.secretKey,
        region: config.region,
        pathStyle: true,
        transportAgent: this.agent,
        transport: idleTimeoutTransport(endpoint.useSSL ? https : http, options.requestIdleTimeoutMs ?? 120_000),
      });
    }
  }

  get bucket(): string {
    return this.config.bucket;
  }

  /** The physical object name for a logical key: the configured prefix, verbatim, then the key. */
  objectName(key: string): string {
    assertSafeObjectKey(key);
    return `${this.config.keyPrefix}${key}`;
  }

  async beginUpload(key: string): Promise<ObjectUpload> {
    return new S3Upload(this.client, {
      bucket: this.config.bucket,
      objectName: this.objectName(key),
      partSizeBytes: this.config.partSizeBytes,
      secrets: this.secrets,
    });
  }

  async exists(key: string): Promise<boolean> {
    const objectName = this.objectName(key);
    try {
      await this.client.statObject(this.config.bucket, objectName);
      return true;
    } catch (error) {
      if (isS3NotFound(error)) return false;
      throw this.failure('stat', objectName, error);
    }
  }

  async read(key: string): Promise<Buffer> {
    const objectName = this.objectName(key);
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of await this.client.getObject(this.config.bucket, objectName)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    } catch (error) {
      if (isS3NotFound(error)) throw objectNotFound(key);
      throw this.failure('get', objectName, error);
    }
  }

  /** HEAD for the size, then GET for the bytes, streamed as they arrive (the socket paces the server). */
  async readStream(key: string): Promise<ObjectReadStream> {
    const objectName = this.objectName(key);
    let sizeBytes: number;
    let stream: Readable;
    try {
      sizeBytes = (await this.client.statObject(this.config.bucket, objectName)).size;
      stream = await this.client.getObject(this.config.bucket, objectName);
    } catch (error) {
      if (isS3NotFound(error)) throw objectNotFound(key);
      throw this.readFailure(objectName, error);
    }
    // The object was replaced between the two requests: its size would not describe these bytes.
    const length = Number((stream as Partial<IncomingMessage>).headers?.['content-length']);
    if (Number.isSafeInteger(length) && length !== sizeBytes) {
      stream.destroy();
      throw new StorageError(
        FetCode.StorageFailed,
        `S3 object ${this.config.bucket}/${objectName} changed while it was opened (${sizeBytes} bytes, then ${length}); retry`,
      );
    }
    return { stream, sizeBytes };
  }

  /** A server-side copy (no bytes through this process), then the source is removed. */
  async move(from: string, to: string): Promise<void> {
    const source = this.objectName(from);
    const target = this.objectName(to);
    try {
      await this.client.copyObject(this.config.bucket, target, `/${this.config.bucket}/${source}`);
    } catch (error) {
      if (isS3NotFound(error)) throw objectNotFound(from);
      throw this.failure('copy', target, error);
    }
    await this.delete(from);
  }

  async delete(key: string): Promise<void> {
    const objectName = this.objectName(key);
    try {
      await this.client.removeObject(this.config.bucket, objectName);
    } catch (error) {
      if (isS3NotFound(error)) return;
      throw this.failure('delete', objectName, error);
    }
  }

  /** Lists the folder, then removes its objects one by one (a folder is one job's parts: a few hundred at most). */
  async deleteFolder(key: string): Promise<void> {
    const prefix = `${this.objectName(key)}/`;
    const names: string[] = [];
    try {
      for await (const item of this.client.listObjectsV2(this.config.bucket, prefix, true)) {
        if (typeof (item as { name?: unknown }).name === 'string') names.push((item as { name: string }).name);
      }
    } catch (error) {
      throw this.failure('list', prefix, error);
    }
    for (const name of names) {
      try {
        await this.client.removeObject(this.config.bucket, name);
      } catch (error) {
        if (!isS3NotFound(error)) throw this.failure('delete', name, error);
      }
    }
  }

  async ping(): Promise<void> {
    let exists: boolean;
    try {
      exists = await this.client.bucketExists(this.config.bucket);
    } catch (error) {
      throw this.failure('head bucket', '', error);
    }
    if (!exists) throw new StorageError(FetCode.StorageFailed, `S3 bucket ${this.config.bucket} does not exist`);
  }

  /** Creates the bucket when it is missing, so a fresh MinIO or s3rver works without setup. */
  async ensureBucket(): Promise<void> {
    try {
      if (await this.client.bucketExists(this.config.bucket)) return;
      await this.client.makeBucket(this.config.bucket, this.config.region);
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      // Another instance created it between our check and our create.
      if (code === 'BucketAlreadyOwnedByYou' || code === 'BucketAlreadyExists') return;
      throw this.failure('create bucket', '', error);
    }
  }

  async close(): Promise<void> {
    this.agent?.destroy();
  }

  /** As `failure`, but a server that cannot be reached is FET-0003: the reader may simply retry. */
  private readFailure(objectName: string, error: unknown): StorageError {
    const message = describeS3Failure('read', this.config.bucket, objectName, error, this.secrets);
    return new StorageError(isS3Unavailable(error) ? FetCode.ServiceUnavailable : FetCode.StorageFailed, message);
  }

  private failure(action: string, objectName: string, error: unknown): StorageError {
    return new StorageError(FetCode.StorageFailed, describeS3Failure(action, this.config.bucket, objectName, error, this.secrets));
  }
}

interface Endpoint {
  readonly host: string;
  readonly port?: number;
  readonly useSSL: boolean;
}

/** Accepts a bare host (the minio convention) or a URL such as `http://minio:9000`. */
function parseEndpoint(config: S3Config): Endpoint {
  if (!config.endPoint.includes('://')) return { host: config.endPoint, port: config.port, useSSL: config.useSSL };
  const url = new URL(config.endPoint);
  const useSSL = url.protocol === 'https:';
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: config.port ?? (url.port ? Number(url.port) : undefined), useSSL };
}

type Transport = Pick<typeof http, 'request'>;

/** The minio client sets no timeouts of its own; this cuts requests whose socket goes quiet. */
function idleTimeoutTransport(base: typeof http | typeof https, idleMs: number): Transport {
  const request = (options: http.RequestOptions, callback?: (res: http.IncomingMessage) => void): http.ClientRequest => {
    const req = base.request(options, callback);
    req.setTimeout(idleMs, () => req.destroy(new Error(`no response from S3 for ${idleMs} ms`)));
    return req;
  };
  return { request: request as Transport['request'] };
}
