import type { Client } from 'minio';
import { FetCode } from '../../engine/errors/fet-code.js';
import { BufferedUpload } from '../../engine/result/buffered-writer.js';
import { StorageError } from '../storage.error.js';
import { describeS3Failure, type S3Secrets } from './s3-failure.js';
import { withDeadline } from '../../engine/concurrency/settles-within.js';

export type S3UploadClient = Pick<
  Client,
  'putObject' | 'initiateNewMultipartUpload' | 'uploadPart' | 'completeMultipartUpload' | 'abortMultipartUpload'
>;

export interface S3UploadTarget {
  readonly bucket: string;
  readonly objectName: string;
  readonly partSizeBytes: number;
  readonly secrets: S3Secrets;
}

const CONTENT_TYPE = { 'Content-Type': 'application/octet-stream' };
const S3_MAX_PARTS = 10_000;
/** How long `abort` waits for a part or request still on the wire before giving up on it. */
const ABORT_WAIT_MS = 15_000;

type UploadState = 'open' | 'failed' | 'completed' | 'aborted';

/**
 * One object being written to S3. Bytes fill a part buffer; a full part is sent while the next
 * one fills, and a writer that fills a second part waits for the first to land. So at most two
 * parts are held, and parts go out strictly in order. An object that never reached one part is
 * sent with a single PUT at `complete`.
 */
export class S3Upload extends BufferedUpload {
  private part: Buffer | undefined;
  /** The buffer of the part on the wire; it becomes `spare` once that part has landed. */
  private sending: Buffer | undefined;
  /** Reused rather than reallocated: fresh 8 MiB buffers per part pile up as garbage faster than GC runs. */
  private spare: Buffer | undefined;
  private uploadId: string | undefined;
  private initiating: Promise<string> | undefined;
  private partsSent = 0;
  private readonly etags: { part: number; etag: string }[] = [];
  private inFlight: Promise<void> | undefined;
  private failure: StorageError | undefined;
  private state: UploadState = 'open';

  constructor(
    private readonly client: S3UploadClient,
    private readonly target: S3UploadTarget,
  ) {
    super();
  }

  override async complete(): Promise<void> {
    this.assertOpen();
    const { bucket, objectName } = this.target;
    if (this.partsSent === 0) {
      const body = this.part ? this.part.subarray(0, this.filled) : Buffer.alloc(0);
      await this.call('put object', () => this.client.putObject(bucket, objectName, body, body.length, CONTENT_TYPE));
    } else {
      if (this.filled > 0) await this.flush();
      await this.settle();
      const parts = [...this.etags].sort((a, b) => a.part - b.part);
      const uploadId = this.uploadId as string;
      await this.call('complete multipart upload', () => this.client.completeMultipartUpload(bucket, objectName, uploadId, parts));
    }
    this.assertOpen();
    this.state = 'completed';
    this.release();
  }

  override async abort(): Promise<void> {
    if (this.state === 'completed' || this.state === 'aborted') return;
    this.state = 'aborted';
    this.release();
    // A part still on the wire could otherwise land after the abort and keep the upload alive.
    await within(ABORT_WAIT_MS, this.inFlight);
    const uploadId = this.uploadId ?? (await within(ABORT_WAIT_MS, this.initiating));
    if (!uploadId) return;
    const { bucket, objectName } = this.target;
    // s3rver answers MethodNotAllowed; an upload never completed leaves no object there either.
    await within(ABORT_WAIT_MS, this.client.abortMultipartUpload(bucket, objectName, uploadId));
  }

  protected override filling(): Buffer {
    if (!this.part) {
      this.part = this.spare ?? Buffer.allocUnsafe(this.target.partSizeBytes);
      this.spare = undefined;
    }
    return this.part;
  }

  /** Sends the filled part, once the one before it has landed. */
  protected override async flush(): Promise<void> {
    const buffer = this.part as Buffer;
    const body = buffer.subarray(0, this.filled);
    this.part = undefined;
    this.filled = 0;
    await this.settle();
    const uploadId = this.uploadId ?? (await this.initiate());
    this.assertOpen();
    if (this.partsSent === S3_MAX_PARTS) {
      throw this.fail(
        new StorageError(
          FetCode.StorageFailed,
          `S3 upload of ${this.target.objectName} needs more than ${S3_MAX_PARTS} parts; raise S3_PART_SIZE_MB`,
        ),
      );
    }
    const partNumber = ++this.partsSent;
    const { bucket, objectName } = this.target;
    this.sending = buffer;
    this.inFlight = this.call(`upload part ${partNumber}`, () =>
      this.client.uploadPart({ bucketName: bucket, objectName, uploadID: uploadId, partNumber, headers: {} }, body),
    ).then(
      (result) => {
        this.etags.push({ part: partNumber, etag: result.etag });
      },
      () => {
        // Recorded by `call`; surfaced by the next write, complete or settle.
      },
    );
  }

  private async initiate(): Promise<string> {
    const { bucket, objectName } = this.target;
    this.initiating = this.call('initiate multipart upload', () =>
      this.client.initiateNewMultipartUpload(bucket, objectName, { ...CONTENT_TYPE }),
    );
    this.uploadId = await this.initiating;
    return this.uploadId;
  }

  /** Waits for the part on the wire, then reports its failure if it had one. */
  private async settle(): Promise<void> {
    const pending = this.inFlight;
    if (pending) {
      // Cleared only once settled, so a concurrent `abort` still sees the part and waits for it.
      await pending;
      if (this.inFlight === pending) this.inFlight = undefined;
      // Only a part that landed frees its buffer; a failed request may still hold it.
      if (!this.failure && this.state === 'open') this.spare = this.sending;
      this.sending = undefined;
    }
    this.assertOpen();
  }

  private release(): void {
    this.part = undefined;
    this.spare = undefined;
    this.sending = undefined;
  }

  private async call<T>(action: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      const { bucket, objectName, secrets } = this.target;
      throw this.fail(new StorageError(FetCode.StorageFailed, describeS3Failure(action, bucket, objectName, error, secrets)));
    }
  }

  private fail(error: StorageError): StorageError {
    this.failure ??= error;
    if (this.state === 'open') this.state = 'failed';
    return error;
  }

  protected override assertOpen(): void {
    if (this.failure) throw this.failure;
    if (this.state !== 'open') {
      throw new StorageError(FetCode.StorageFailed, `S3 upload of ${this.target.objectName} was already ${this.state}`);
    }
  }
}

/** What `promise` resolves to within `ms`, else (late, failed, or none) undefined. Never rejects. */
function within<T>(ms: number, promise: Promise<T> | undefined): Promise<T | undefined> {
  if (!promise) return Promise.resolve(undefined);
  // Waits of the abort path, often at shutdown: they never hold the process open by themselves.
  return withDeadline(promise, ms, () => new Error('timed out'), { unref: true }).catch(() => undefined);
}
