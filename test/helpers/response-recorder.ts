import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import Test from 'supertest/lib/test.js';
import { expect } from 'vitest';

/**
 * Records every HTTP answer the tests get, for the after-suite check that validates bodies against
 * the API document (scripts/after-suite/documented-bodies.mjs). Loaded by vitest for every file
 * (setupFiles), it hooks the two clients the tests use: supertest's Test (in-process apps and
 * `request(url)`) and the global fetch (spawned apps, the cluster helper). Only in a suite run
 * (FETCHER_TEST_LOG_DIR set).
 *
 * The records go to `<run dir>/responses/`, beside the log directory, not in it: bodies carry what
 * a route shows once on purpose (a new API key), which the no-secrets-in-logs check rightly refuses
 * to find in logs.
 */
export const MAX_RECORDED_BODY_BYTES = 1024 * 1024;

interface ResponseRecord {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly contentType: string | null;
  readonly body?: unknown;
  readonly skipped?: string;
  readonly source?: string;
}

const logDir = process.env.FETCHER_TEST_LOG_DIR;
const file = logDir ? join(dirname(logDir), 'responses', `${process.pid}.jsonl`) : undefined;

function currentSpec(): string | undefined {
  try {
    const path = expect.getState().testPath;
    return path === undefined ? undefined : relative(process.cwd(), path);
  } catch {
    return undefined;
  }
}

/**
 * Only the tiers that run Fetcher itself (test/integration, test/e2e): unit specs beside the code
 * mount fake controllers on Fetcher's paths, whose answers the document does not describe.
 */
function recordsThisSpec(spec: string | undefined): boolean {
  return spec === undefined || spec.startsWith('test/');
}

function write(record: ResponseRecord): void {
  if (!file) return;
  const source = currentSpec();
  if (!recordsThisSpec(source)) return;
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify({ ...record, source })}\n`);
}

const isJson = (contentType: string | null) => contentType !== null && /^application\/(.+\+)?json\b/i.test(contentType);

/** What one answer's record holds of its body: JSON bodies up to the bound, else why not. */
function bodyPart(contentType: string | null, bytes: number, parse: () => unknown): Pick<ResponseRecord, 'body' | 'skipped'> {
  if (!isJson(contentType)) return {};
  if (bytes > MAX_RECORDED_BODY_BYTES) return { skipped: `body of ${bytes} bytes is over ${MAX_RECORDED_BODY_BYTES}` };
  try {
    return { body: parse() };
  } catch {
    return { skipped: 'body is not JSON' };
  }
}

interface SuperagentResponse {
  status: number;
  headers: Record<string, string | undefined>;
  text?: string;
  body?: unknown;
}

function hookSupertest(): void {
  const proto = Test.prototype as unknown as { assert(error: unknown, res: SuperagentResponse | undefined, fn: unknown): unknown };
  const assert = proto.assert;
  proto.assert = function (this: { method: string; url: string }, error, res, fn) {
    if (res && typeof res.status === 'number') {
      const contentType = res.headers?.['content-type'] ?? null;
      // A test that parsed the body as bytes (`.buffer(true).parse(…)`) has it as a Buffer: the text is that.
      const text = typeof res.text === 'string' ? res.text : Buffer.isBuffer(res.body) ? res.body.toString('utf8') : undefined;
      const bytes = text !== undefined ? Buffer.byteLength(text) : Number(res.headers?.['content-length'] ?? 0);
      write({
        method: this.method,
        path: new URL(this.url, 'http://test.invalid').pathname,
        status: res.status,
        contentType,
        ...bodyPart(contentType, bytes, () => (text !== undefined ? JSON.parse(text) : res.body)),
      });
    }
    return assert.call(this, error, res, fn);
  };
}

/** Answers from loopback only: the apps under test; fake third parties are not in the document and are skipped by path. */
function hookFetch(): void {
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    try {
      const url = new URL(response.url || (input instanceof Request ? input.url : String(input)));
      if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return response;
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      const contentType = response.headers.get('content-type');
      const length = Number(response.headers.get('content-length') ?? Number.NaN);
      const base = { method, path: url.pathname, status: response.status, contentType };
      if (!isJson(contentType)) write(base);
      else if (!(length <= MAX_RECORDED_BODY_BYTES)) {
        write({
          ...base,
          skipped: Number.isNaN(length) ? 'JSON body without Content-Length' : `body of ${length} bytes is over the bound`,
        });
      } else {
        // A clone, read on the side: the test reads the original as it would.
        void response
          .clone()
          .text()
          .then((text) => write({ ...base, ...bodyPart(contentType, Buffer.byteLength(text), () => JSON.parse(text)) }))
          .catch(() => undefined);
      }
    } catch {
      // Recording never changes what a test sees.
    }
    return response;
  };
}

if (file) {
  hookSupertest();
  hookFetch();
}
