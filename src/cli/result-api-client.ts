import http from 'node:http';
import https from 'node:https';
import type { ResultOutput } from '../engine/formats/output-format.js';
import type { ResultPart } from '../engine/formats/result-parts.js';
import { CliError } from './cli-io.js';

/** The members of GET /v1/fetcher/{id} the command uses. */
export interface JobView {
  status?: string;
  resultPath?: string;
  resultHmac?: string;
  resultKeyVersion?: string;
  /** Absent on a Fetcher of before formats: the default. */
  output?: ResultOutput;
  result?: { sizeBytes?: number; rowCount?: number; sha256?: string; parts?: ResultPart[] };
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
    return this.downloadFrom(url, `job ${jobId}'s result`, raw, hint);
  }

  /** One part of a per-table result through GET …/result/{datasource}/{table}, as `download` fetches the result. */
  async downloadPart(jobId: string, part: Pick<ResultPart, 'datasource' | 'table'>, raw: boolean): Promise<DownloadedResult> {
    const route = `/v1/fetcher/${encodeURIComponent(jobId)}/result/${encodeURIComponent(part.datasource)}/${encodeURIComponent(part.table)}`;
    const what = `part ${part.datasource}/${part.table} of job ${jobId}`;
    const url = `${this.baseUrl}${route}${raw ? '?raw=true' : ''}`;
    // The job lists the part: a 404 is the server saying why it has none (or a Fetcher without the route).
    const downloaded = await this.downloadFrom(url, what, raw, '', (error) => {
      throw failure(url, 404, error);
    });
    return downloaded as DownloadedResult;
  }

  /**
   * The bytes exactly as sent: node:http, since fetch would decode a Content-Encoding (a gzip result
   * or part is verified as the compressed bytes it is). 404 is undefined (a Fetcher without the route).
   */
  private async downloadFrom(
    url: string,
    what: string,
    raw: boolean,
    hint: string,
    onMissing?: (error: ErrorBody | undefined) => void,
  ): Promise<DownloadedResult | undefined> {
    const response = await this.getRaw(url, raw ? 'application/octet-stream' : '*/*');
    if (response.statusCode === 404) {
      onMissing?.(parseError(await readAll(response).catch(() => Buffer.alloc(0))));
      return undefined;
    }
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      // The hint is for the server failing to open the result, not for a result that is not there.
      throw failure(url, status, parseError(await readAll(response).catch(() => Buffer.alloc(0))), status >= 500 ? hint : '');
    }
    const length = Number(response.headers['content-length']);
    const chunks: Buffer[] = [];
    let received = 0;
    try {
      for await (const chunk of response) {
        chunks.push(chunk as Buffer);
        received += (chunk as Buffer).length;
      }
    } catch {
      // Measured below: what matters is how much arrived.
    }
    if (!Number.isSafeInteger(length) || received !== length || !response.complete) {
      throw new CliError(
        `the download of ${what} was cut short (${received} of ${Number.isSafeInteger(length) ? length : 'unknown'} bytes): the server found the stored result damaged or could not read it; see its log`,
      );
    }
    const header = (name: string) => {
      const value = response.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    return { body: Buffer.concat(chunks), etag: header('etag')?.replace(/^"|"$/g, ''), sha256Header: header('x-result-sha256') };
  }

  private getRaw(url: string, accept: string): Promise<http.IncomingMessage> {
    const client = url.startsWith('https:') ? https : http;
    const headers = { accept, 'accept-encoding': 'identity', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) };
    return new Promise((resolve, reject) => {
      const request = client.get(url, { headers }, resolve);
      request.on('error', (error: NodeJS.ErrnoException) =>
        reject(new CliError(`cannot reach Fetcher at ${this.baseUrl} (${error.code ?? error.message}); set FETCHER_URL`)),
      );
    });
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

async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseError(body: Buffer): ErrorBody | undefined {
  try {
    return JSON.parse(body.toString('utf8')) as ErrorBody;
  } catch {
    return undefined;
  }
}
