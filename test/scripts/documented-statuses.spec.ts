import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

interface AccessLine {
  method: string;
  route: string;
  status: number;
  path: string;
  source?: string;
}
interface Checker {
  default: (context: { runDir: string; logDir: string; fullSuite: boolean; root: string }) => Promise<string[]>;
  checkDocumentedStatuses: (input: {
    document: unknown;
    lines: AccessLine[];
    fullSuite: boolean;
    unobservable?: Array<{ method: string; path: string; status: number; reason: string }>;
  }) => string[];
}

// A path the type checker does not resolve: the script is plain ESM without declarations.
const SCRIPT = new URL('../../scripts/after-suite/documented-statuses.mjs', import.meta.url).href;
const load = () => import(SCRIPT) as Promise<Checker>;

const responses = (...statuses: string[]) => Object.fromEntries(statuses.map((status) => [status, { description: '' }]));

/** Two operations, as @nestjs/swagger writes them. */
const DOCUMENT = {
  openapi: '3.0.0',
  paths: {
    '/v1/fetcher/{id}': { get: { responses: responses('200', '400', '404') } },
    '/health': { get: { responses: responses('200') } },
  },
};

const line = (method: string, route: string, status: number, path = route): AccessLine => ({ method, route, status, path });

/** Every documented pair observed once, through Express route templates. */
const CLEAN = [
  line('GET', '/v1/fetcher/:id', 200, '/v1/fetcher/0190f3c2-0000-7000-8000-000000000000'),
  line('GET', '/v1/fetcher/:id', 400, '/v1/fetcher/nope'),
  line('GET', '/v1/fetcher/:id', 404),
  line('GET', '/health', 200),
];

describe('documented-statuses checker', () => {
  it('finds nothing when every answer is documented and every documented answer was seen', async () => {
    const { checkDocumentedStatuses } = await load();
    expect(checkDocumentedStatuses({ document: DOCUMENT, lines: CLEAN, fullSuite: true })).toEqual([]);
  });

  it('reports an answer the document does not list for its operation, and a route it lacks, on any run', async () => {
    const { checkDocumentedStatuses } = await load();
    const lines = [
      ...CLEAN,
      line('GET', '/v1/fetcher/:id', 503, '/v1/fetcher/0190'),
      line('GET', '/v1/fetcher/:id', 503, '/v1/fetcher/0191'),
      line('DELETE', '/v1/fetcher/:id', 204),
    ];
    expect(checkDocumentedStatuses({ document: DOCUMENT, lines, fullSuite: false })).toEqual([
      'undocumented: GET /v1/fetcher/{id} answered 503 (2×, e.g. /v1/fetcher/0190)',
      'undocumented: DELETE /v1/fetcher/{id} is not in the document (1×, e.g. /v1/fetcher/:id)',
    ]);
  });

  it('ignores unmatched requests, /metrics, the API docs and HEAD of a documented GET', async () => {
    const { checkDocumentedStatuses } = await load();
    const lines = [
      ...CLEAN,
      line('GET', 'unmatched', 404, '/nope'),
      line('GET', '/metrics', 200),
      line('GET', '/swagger-json', 200),
      line('GET', '/swagger/swagger-ui-init.js', 200),
      line('HEAD', '/health', 200),
    ];
    expect(checkDocumentedStatuses({ document: DOCUMENT, lines, fullSuite: true })).toEqual([]);
  });

  it('reports documented answers no test produced on a full run only, except those listed with a reason', async () => {
    const { checkDocumentedStatuses } = await load();
    const lines = CLEAN.filter((entry) => entry.status !== 404 && entry.status !== 400);
    expect(checkDocumentedStatuses({ document: DOCUMENT, lines, fullSuite: false })).toEqual([]);
    expect(checkDocumentedStatuses({ document: DOCUMENT, lines, fullSuite: true })).toEqual([
      'unobserved: GET /v1/fetcher/{id} documents 400, which no test produced',
      'unobserved: GET /v1/fetcher/{id} documents 404, which no test produced',
    ]);
    const unobservable = [{ method: 'get', path: '/v1/fetcher/{id}', status: 404, reason: 'synthetic' }];
    expect(checkDocumentedStatuses({ document: DOCUMENT, lines, fullSuite: true, unobservable })).toEqual([
      'unobserved: GET /v1/fetcher/{id} documents 400, which no test produced',
    ]);
    const anyRoute = [{ method: '*', path: '*', status: 400, reason: 'synthetic' }];
    expect(checkDocumentedStatuses({ document: DOCUMENT, lines, fullSuite: true, unobservable: anyRoute })).toEqual([
      'unobserved: GET /v1/fetcher/{id} documents 404, which no test produced',
    ]);
    const otherMethod = [{ method: 'post', path: '*', status: 404, reason: 'synthetic' }];
    expect(checkDocumentedStatuses({ document: DOCUMENT, lines, fullSuite: true, unobservable: otherMethod })).toHaveLength(2);
  });

  describe('over a run directory', () => {
    let runDir: string | undefined;
    afterEach(() => {
      if (runDir) rmSync(runDir, { recursive: true, force: true });
    });

    it('reads openapi.json beside the log directory and every JSON line of every log file, skipping the rest', async () => {
      const checker = await load();
      runDir = mkdtempSync(join(tmpdir(), 'documented-statuses-'));
      const logDir = join(runDir, 'logs');
      mkdirSync(join(logDir, 'nested'), { recursive: true });
      writeFileSync(join(runDir, 'openapi.json'), JSON.stringify(DOCUMENT));
      const access = (entry: AccessLine) =>
        JSON.stringify({
          level: entry.status >= 500 ? 50 : 30,
          time: 1,
          msg: 'request completed',
          requestId: 'r',
          durationMs: 1,
          ...entry,
        });
      writeFileSync(
        join(logDir, 'app-1.log'),
        [
          'not json, request completed',
          JSON.stringify({ level: 30, msg: 'Nest application successfully started' }),
          ...CLEAN.slice(0, 2).map(access),
          '{"msg":"request completed", truncated',
        ].join('\n'),
      );
      writeFileSync(join(logDir, 'nested', 'app-2.log'), `${CLEAN.slice(2).map(access).join('\n')}\n`);
      const context = { runDir, logDir, root: process.cwd() };
      expect(await checker.default({ ...context, fullSuite: true })).toEqual([]);

      writeFileSync(join(logDir, 'app-3.log'), access(line('GET', '/health', 500)));
      expect(await checker.default({ ...context, fullSuite: false })).toEqual([
        'undocumented: GET /health answered 500 (1×, e.g. /health in app-3.log)',
      ]);
    });

    it('skips a filtered run without the document, and fails a full run without it', async () => {
      const checker = await load();
      runDir = mkdtempSync(join(tmpdir(), 'documented-statuses-'));
      const context = { runDir, logDir: join(runDir, 'logs'), root: process.cwd() };
      expect(await checker.default({ ...context, fullSuite: false })).toEqual([]);
      expect(await checker.default({ ...context, fullSuite: true })).toEqual([expect.stringContaining('openapi.json is missing')]);
    });
  });
});
