import { CliError } from './cli-io.js';

/** The members of GET /v1/fetcher/{id} the command uses. */
export interface JobView {
  status?: string;
  resultPath?: string;
  resultHmac?: string;
  resultKeyVersion?: string;
  result?: { sizeBytes?: number; rowCount?: number; sha256?: string };
  error?: { code?: string; message?: string };
}

/** A body from GET /v1/fetcher/{id}/result, read whole and as long as its Content-Length said. */
export interface DownloadedResult {
  readonly body: Buffer;
  /** ETag without its quotes: the plaintext's SHA-256 (plaintext downloads only). */
  readonly etag?: string;
  readonly sha256Header?: string;
}

interface ErrorBody {
  code?: string;
  message?: string;
}

/** Fetcher's HTTP API as `npm run result` uses it: the job, then its result. */
export class ResultApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  /** A completed job with its result path and HMAC, or a CliError saying why there is no result. */
  async completedJob(jobId: string): Promise<JobView> {
    const url = `${this.baseUrl}/v1/fetcher/${encodeURIComponent(jobId)}`;
    const response = await this.get(url, 'application/json');
    const body = (await response.json().catch(() => undefined)) as (JobView & ErrorBody) | undefined;
    if (response.status === 404) throw new CliError(`job ${jobId} not found at ${this.baseUrl}`);
    if (!response.ok || body === undefined) throw failure(url, response.status, body);
    if (body.status !== 'completed') {
      const why = body.error?.message ? ` (${body.error.code ?? 'error'}: ${body.error.message})` : '';
      throw new CliError(`job ${jobId} is ${body.status ?? 'in an unknown state'}${why}; only a completed job has a result`);
    }
    if (!body.resultPath || !body.resultHmac) throw new CliError(`job ${jobId} is completed but has no resultPath/resultHmac`);
    return body;
  }

  /**
   * The job's result through GET …/result: the sealed object (`raw`) or the verified plaintext.
   * Undefined when the server answers 404 although the job was just found: a Fetcher older than the
   * route. A body shorter than its Content-Length is the server cutting a result it could not
   * verify; that is an error, never a result.
   */
  async download(jobId: string, raw: boolean, hint = ''): Promise<DownloadedResult | undefined> {
    const url = `${this.baseUrl}/v1/fetcher/${encodeURIComponent(jobId)}/result${raw ? '?raw=true' : ''}`;
    const response = await this.get(url, raw ? 'application/octet-stream' : 'application/json');
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) {
      // The hint is for the server failing to open the result, not for a result that is not there.
      throw failure(
        url,
        response.status,
        (await response.json().catch(() => undefined)) as ErrorBody | undefined,
        response.status >= 500 ? hint : '',
      );
    }
    const length = Number(response.headers.get('content-length'));
    const chunks: Buffer[] = [];
    let received = 0;
    try {
      for await (const chunk of response.body ?? []) {
        chunks.push(Buffer.from(chunk as Uint8Array));
        received += (chunk as Uint8Array).length;
      }
    } catch {
      // Measured below: what matters is how much arrived.
    }
    if (!Number.isSafeInteger(length) || received !== length) {
      throw new CliError(
        `the download of job ${jobId}'s result was cut short (${received} of ${Number.isSafeInteger(length) ? length : 'unknown'} bytes): the server found the stored result damaged or could not read it; see its log`,
      );
    }
    return {
      body: Buffer.concat(chunks),
      etag: response.headers.get('etag')?.replace(/^"|"$/g, ''),
      sha256Header: response.headers.get('x-result-sha256') ?? undefined,
    };
  }

  private async get(url: string, accept: string): Promise<Response> {
    try {
      return await fetch(url, { headers: { accept, ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) } });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `cannot reach Fetcher at ${this.baseUrl} (${cause?.code ?? cause?.message ?? (error as Error).message}); set FETCHER_URL`,
      );
    }
  }
}

function failure(url: string, status: number, body: ErrorBody | undefined, hint = ''): CliError {
  return new CliError(
    `GET ${url} answered ${status}${body?.code ? ` ${body.code}` : ''}${body?.message ? `: ${body.message}` : ''}${hint}`,
  );
}
