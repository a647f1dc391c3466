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
  if (!message && error instanceof AggregateError) message = error.errors.map((inner: unknown) => (inner instanceof Error ? inner.message : String(inner))).join('; ');
  if (!message) message = 'no details';
  const prefix = code && !message.includes(code) ? `${code}: ` : '';
  const target = objectName ? `${bucket}/${objectName}` : bucket;
  return mask(`S3 ${action} failed for ${target}: ${prefix}${message}`, secrets);
}

export function isS3NotFound(error: unknown): boolean {
  const code = stringField(error, 'code');
  return code === 'NotFound' || code === 'NoSuchKey';
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
