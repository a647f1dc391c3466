export interface S3Secrets {
  readonly accessKey: string;
  readonly secretKey: string;
}

/**
 * One line about a failed S3 call that is safe for logs, job errors and events. The minio
 * client's errors carry server fields (some echo the access key id) and request details; only
 * the code and message are kept, and the configured credentials are masked wherever they appear.
 */
export function describeS3Failure(action: string, bucket: string, objectName: string, error: unknown, secrets: S3Secrets): string {
  const code = stringField(error, 'code');
  let message = error instanceof Error ? error.message : String(error);
  // Connection failures to a name with several addresses arrive as an AggregateError without a message.
  if (!message && error instanceof AggregateError)
    message = error.errors.map((inner: unknown) => (inner instanceof Error ? inner.message : String(inner))).join('; ');
  if (!message) message = 'no details';
  const prefix = code && !message.includes(code) ? `${code}: ` : '';
  const target = objectName ? `${bucket}/${objectName}` : bucket;
  return mask(`S3 ${action} failed for ${target}: ${prefix}${message}`, secrets);
}

export function isS3NotFound(error: unknown): boolean {
  const code = stringField(error, 'code');
  return code === 'NotFound' || code === 'NoSuchKey';
}

/** Network-level failures and S3's own "try again" answers: the store is down, not the request wrong. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EPIPE',
  'ServiceUnavailable',
  'SlowDown',
  'InternalError',
  'RequestTimeout',
]);

/** Whether the failure means the S3 server cannot be reached or used right now (a retry may work). */
export function isS3Unavailable(error: unknown): boolean {
  if (error instanceof AggregateError) return error.errors.some(isS3Unavailable);
  const code = stringField(error, 'code');
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) return true;
  // The store's own idle timeout (see idleTimeoutTransport) carries no code.
  return error instanceof Error && error.message.startsWith('no response from S3');
}

function mask(text: string, secrets: S3Secrets): string {
  let out = text;
  for (const secret of [secrets.secretKey, secrets.accessKey]) {
    if (secret) out = out.split(secret).join('***');
  }
  return out;
}

function stringField(value: unknown, field: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const found = (value as Record<string, unknown>)[field];
  return typeof found === 'string' ? found : undefined;
}
