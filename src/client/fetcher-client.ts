import { setTimeout as sleep } from 'node:timers/promises';
import createClient, { type Client } from 'openapi-fetch';
import { FetcherApiError, FetcherIntegrityError, FetcherWaitError } from './fetcher-api-error.js';
import type { components, paths } from './openapi.js';
import { verifiedStream } from './verified-download.js';

export type SubmitJobBody = components['schemas']['CreateJobDto'];
export type JobAccepted = components['schemas']['JobAcceptedDto'];
export type Job = components['schemas']['JobResponseDto'];
export type JobStatus = Job['status'];
export type JobPage = components['schemas']['JobPageDto'];
export type ListJobsQuery = NonNullable<paths['/v1/fetcher']['get']['parameters']['query']>;
/** The typed openapi-fetch client over every route of the document. */
export type FetcherRawClient = Client<paths>;

export interface FetcherClientOptions {
  /** Where Fetcher answers, e.g. http://127.0.0.1:4006. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` (an API key or a JWT; nothing with AUTH_MODE=none). */
  readonly token?: string | undefined;
  /** Sent as `X-Product-Name` (the product a connection route acts for). */
  readonly productName?: string | undefined;
  /** Replaces globalThis.fetch, e.g. to add a proxy, tracing or, in tests, to tamper with answers. */
  readonly fetch?: ((request: Request) => Promise<Response>) | undefined;
  /** Sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** What POST /v1/fetcher answered: 202 for a new job, 200 (`duplicate`) for the same request within the dedup window. */
export interface Submitted extends JobAccepted {
  readonly duplicate: boolean;
}

export interface WaitOptions {
  /** Aborting it stops the wait (and the poll in flight) with a FetcherWaitError, reason `aborted`. */
  readonly signal?: AbortSignal | undefined;
  /** Stop with a FetcherWaitError, reason `timeout`, when the job has not ended by then. Default: no limit. */
  readonly timeoutMs?: number | undefined;
  /** Pause between polls; at least 50 ms. Default 500 ms. */
  readonly intervalMs?: number | undefined;
}

export interface DownloadOptions {
  /** The stored sealed object as it is (for a consumer holding the derived keys); not verified here. */
  readonly raw?: boolean | undefined;
  /** The SHA-256 the caller already knows (a job's `result.sha256`); it must match the server's header too. */
  readonly expectedSha256?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface Download {
  /** The bytes. When `verified`, the stream errors at its end (FetcherIntegrityError) instead of closing on a mismatch. */
  readonly stream: ReadableStream<Uint8Array>;
  /** The SHA-256 the server announced (X-Result-Sha256), when it did. */
  readonly sha256: string | undefined;
  /**
   * Whether the stream is checked against `sha256`. False for `raw` (the digest is the plaintext's) and
   * for a compressed result (fetch decodes Content-Encoding and the digest is of the encoded bytes; the
   * decoder's own checksum, gzip's CRC-32, is then the check).
   */
  readonly verified: boolean;
  readonly contentType: string | undefined;
  readonly contentEncoding: string | undefined;
}

export interface FetcherClient {
  /** The typed openapi-fetch client, for every route the convenience layer does not cover. */
  readonly raw: FetcherRawClient;
  submit(body: SubmitJobBody): Promise<Submitted>;
  get(jobId: string, signal?: AbortSignal): Promise<Job>;
  list(query?: ListJobsQuery): Promise<JobPage>;
  cancel(jobId: string): Promise<Job>;
  /** Polls until the job is completed or failed and returns it (a failed job is returned, not thrown). */
  waitFor(jobId: string, options?: WaitOptions): Promise<Job>;
  download(jobId: string, options?: DownloadOptions): Promise<Download>;
}

const TERMINAL: ReadonlySet<JobStatus> = new Set(['completed', 'failed']);
const MIN_INTERVAL_MS = 50;
const DEFAULT_INTERVAL_MS = 500;
export const RESULT_SHA256_HEADER = 'X-Result-Sha256';

export function createFetcherClient(options: FetcherClientOptions): FetcherClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  if (options.productName !== undefined) headers['X-Product-Name'] = options.productName;
  const raw = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers, fetch: options.fetch });

  const get = async (jobId: string, signal?: AbortSignal): Promise<Job> => {
    const { data, error, response } = await raw.GET('/v1/fetcher/{id}', { params: { path: { id: jobId } }, signal });
    if (data === undefined) throw FetcherApiError.from(response, error);
    return data;
  };

  const waitFor = async (jobId: string, wait: WaitOptions = {}): Promise<Job> => {
    const intervalMs = Math.max(MIN_INTERVAL_MS, wait.intervalMs ?? DEFAULT_INTERVAL_MS);
    const signals: AbortSignal[] = [];
    if (wait.signal) signals.push(wait.signal);
    if (wait.timeoutMs !== undefined) signals.push(AbortSignal.timeout(Math.max(0, wait.timeoutMs)));
    const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
    let lastStatus: string | undefined;
    // The caller's own abort wins over the timeout when both have happened.
    const stopped = () => new FetcherWaitError(wait.signal?.aborted ? 'aborted' : 'timeout', jobId, lastStatus);
    for (;;) {
      if (signal?.aborted) throw stopped();
      let job: Job;
      try {
        job = await get(jobId, signal);
      } catch (error) {
        if (signal?.aborted) throw stopped();
        throw error;
      }
      lastStatus = job.status;
      if (TERMINAL.has(job.status)) return job;
      try {
        await sleep(intervalMs, undefined, { signal });
      } catch {
        throw stopped();
      }
    }
  };

  const download = async (jobId: string, wanted: DownloadOptions = {}): Promise<Download> => {
    const { data, error, response } = await raw.GET('/v1/fetcher/{id}/result', {
      params: { path: { id: jobId }, query: wanted.raw === true ? { raw: 'true' } : undefined },
      parseAs: 'stream',
      signal: wanted.signal,
    });
    if (!response.ok || data === undefined || data === null) throw FetcherApiError.from(response, error);
    const announced = response.headers.get(RESULT_SHA256_HEADER) ?? undefined;
    const contentEncoding = response.headers.get('Content-Encoding') ?? undefined;
    const base = { sha256: announced, contentType: response.headers.get('Content-Type') ?? undefined, contentEncoding };
    if (wanted.raw === true || contentEncoding !== undefined) return { ...base, stream: data, verified: false };
    const expected = wanted.expectedSha256 ?? announced;
    if (expected === undefined || (announced !== undefined && announced !== expected)) {
      await data.cancel();
      throw new FetcherIntegrityError(jobId, expected ?? '(none announced)', announced ?? '(none announced)');
    }
    return { ...base, stream: verifiedStream(data, jobId, expected), verified: true };
  };

  return {
    raw,
    get,
    waitFor,
    download,
    async submit(body) {
      const { data, error, response } = await raw.POST('/v1/fetcher', { body });
      if (data === undefined) throw FetcherApiError.from(response, error);
      return { ...data, duplicate: response.status === 200 };
    },
    async list(query = {}) {
      const { data, error, response } = await raw.GET('/v1/fetcher', { params: { query } });
      if (data === undefined) throw FetcherApiError.from(response, error);
      return data;
    },
    async cancel(jobId) {
      const { data, error, response } = await raw.POST('/v1/fetcher/{id}/cancel', { params: { path: { id: jobId } } });
      if (data === undefined) throw FetcherApiError.from(response, error);
      return data;
    },
  };
}
