import type { components } from './openapi.js';

/** The FET envelope every error answer of the API carries (docs/api.md, "Errors"). */
export type FetEnvelope = components['schemas']['ErrorEnvelopeDto'];

/** An answer of the API outside 2xx: its status and its FET envelope. */
export class FetcherApiError extends Error {
  override readonly name = 'FetcherApiError';
  readonly code: string;
  readonly title: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly details: NonNullable<FetEnvelope['details']>;

  constructor(
    readonly status: number,
    readonly envelope: FetEnvelope,
  ) {
    super(`${envelope.code} (HTTP ${status}): ${envelope.message}`);
    this.code = envelope.code;
    this.title = envelope.title;
    this.fields = fieldsOf(envelope);
    this.details = envelope.details ?? [];
  }

  /**
   * From what openapi-fetch gives for an error answer: the parsed body when it was JSON. A body that
   * is no envelope (a proxy's page, an empty body) still becomes an error with the status, never a success.
   */
  static from(response: Response, body: unknown): FetcherApiError {
    if (isEnvelope(body)) return new FetcherApiError(response.status, body);
    const message = `HTTP ${response.status} ${response.statusText} without a FET envelope`;
    return new FetcherApiError(response.status, { code: 'HTTP', title: response.statusText, message });
  }
}

function isEnvelope(body: unknown): body is FetEnvelope {
  if (typeof body !== 'object' || body === null) return false;
  const record: Record<string, unknown> = { ...body };
  return typeof record.code === 'string' && typeof record.message === 'string';
}

function fieldsOf(envelope: FetEnvelope): Record<string, string> {
  const fields: Record<string, string> = {};
  const given: unknown = envelope.fields;
  if (typeof given !== 'object' || given === null) return fields;
  for (const [path, problem] of Object.entries(given)) if (typeof problem === 'string') fields[path] = problem;
  return fields;
}

/** Why `waitFor` stopped before the job ended: its `timeoutMs` passed, or its `signal` aborted. */
export class FetcherWaitError extends Error {
  override readonly name = 'FetcherWaitError';

  constructor(
    readonly reason: 'timeout' | 'aborted',
    readonly jobId: string,
    /** The job's status at the last poll, when one answered. */
    readonly lastStatus: string | undefined,
  ) {
    super(
      reason === 'timeout'
        ? `job ${jobId} did not end within the timeout (last status: ${lastStatus ?? 'unknown'})`
        : `waiting for job ${jobId} was aborted (last status: ${lastStatus ?? 'unknown'})`,
    );
  }
}

/** A download whose bytes do not hash to the SHA-256 the server announced: the stream errors with it at its end. */
export class FetcherIntegrityError extends Error {
  override readonly name = 'FetcherIntegrityError';

  constructor(
    readonly jobId: string,
    readonly expectedSha256: string,
    readonly actualSha256: string,
  ) {
    super(`the result of job ${jobId} hashed to ${actualSha256}, not the announced ${expectedSha256}: discard it`);
  }
}
