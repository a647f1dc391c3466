import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The slice of s3rver 3.x this helper drives (the package ships no types). */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string; configs: string[] }[];
  vhostBuckets: boolean;
}) => S3rverInstance;

export interface S3rverHandle {
  readonly endPoint: '127.0.0.1';
  readonly port: number;
  readonly accessKey: 'S3RVER';
  readonly secretKey: 'S3RVER';
  readonly bucket: string;
  /** Where s3rver keeps buckets and objects on disk. */
  readonly directory: string;
  /** Stops the server, drops open connections and deletes the directory. Safe to call twice. */
  close(): Promise<void>;
}

/** The S3_* variables that point a Fetcher at this server (path-style, no TLS). */
export function s3rverEnv(s3: S3rverHandle, keyPrefix?: string): Record<string, string> {
  return {
    S3_ENDPOINT: s3.endPoint,
    S3_PORT: String(s3.port),
    S3_USE_SSL: 'false',
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_BUCKET: s3.bucket,
    ...(keyPrefix === undefined ? {} : { S3_KEY_PREFIX: keyPrefix }),
  };
}

export interface StartS3rverOptions {
  /** Created before the server accepts requests. */
  readonly bucket: string;
  /** More buckets to create. */
  readonly extraBuckets?: readonly string[];
  /** Print s3rver's request log (off by default). */
  readonly verbose?: boolean;
}

/**
 * Starts an in-process s3rver on 127.0.0.1 with an OS-assigned free port and a fresh temp
 * directory. Use path-style addressing and `useSSL: false`. s3rver implements the calls the
 * result store uses except AbortMultipartUpload and ListMultipartUploads.
 */
export async function startS3rver(options: StartS3rverOptions): Promise<S3rverHandle> {
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const buckets = [options.bucket, ...(options.extraBuckets ?? [])];
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: !options.verbose,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
    vhostBuckets: false,
  });
  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = server.close().catch(() => undefined);
      // Keep-alive sockets from clients would hold close() open indefinitely.
      server.httpServer?.closeAllConnections();
      await stopped;
      await rm(directory, { recursive: true, force: true });
    })();
    return closing;
  };

  return {
    endPoint: '127.0.0.1',
    port: address.port,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    bucket: options.bucket,
    directory,
    close,
  };
}
