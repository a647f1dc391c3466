import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

interface ResponseRecord {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  body?: unknown;
  source?: string;
}
interface Checker {
  default: (context: { runDir: string; logDir: string; fullSuite: boolean; root: string }) => Promise<string[]>;
  checkDocumentedBodies: (input: { document: unknown; records: ResponseRecord[] }) => string[];
}

// A path the type checker does not resolve: the script is plain ESM without declarations.
const SCRIPT = new URL('../../scripts/after-suite/documented-bodies.mjs', import.meta.url).href;
const load = () => import(SCRIPT) as Promise<Checker>;

const json = (schema: object) => ({ description: '', content: { 'application/json': { schema } } });

/** A job route and a download, as @nestjs/swagger writes them: $refs, OpenAPI 3.0 nullable, a map of maps, a closed object. */
const DOCUMENT = {
  openapi: '3.0.0',
  paths: {
    '/v1/fetcher/{id}': {
      get: { responses: { '200': json({ $ref: '#/components/schemas/Job' }), '404': json({ $ref: '#/components/schemas/Error' }) } },
    },
    '/v1/fetcher/streams': {
      get: { responses: { '200': json({ type: 'object', properties: { items: { type: 'array' } }, required: ['items'] }) } },
    },
    '/v1/fetcher/{id}/result': {
      get: {
        responses: {
          '200': { description: '', content: { 'application/json': { schema: { type: 'object' } }, 'application/x-ndjson': {} } },
        },
      },
    },
    '/v1/fetcher/{id}/result-deleted': { delete: { responses: { '204': { description: '' } } } },
  },
  components: {
    schemas: {
      Job: {
        type: 'object',
        properties: {
          id: { type: 'string', format: 'uuid' },
          status: { type: 'string', enum: ['pending', 'completed'] },
          startedAt: { type: 'string', format: 'date-time', nullable: true },
          rowCounts: { type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'integer' } } },
          output: { allOf: [{ $ref: '#/components/schemas/Output' }], nullable: true },
        },
        required: ['id', 'status', 'rowCounts'],
      },
      Output: { type: 'object', properties: { format: { type: 'string' } }, required: ['format'], additionalProperties: false },
      Error: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    },
  },
};

const ID = '0190f3c2-0000-7000-8000-000000000000';
const GOOD_JOB = {
  id: ID,
  status: 'completed',
  startedAt: null,
  rowCounts: { pg_source: { accounts: 3 } },
  output: { format: 'json' },
};
const record = (body: unknown, overrides: Partial<ResponseRecord> = {}): ResponseRecord => ({
  method: 'GET',
  path: `/v1/fetcher/${ID}`,
  status: 200,
  contentType: 'application/json; charset=utf-8',
  body,
  ...overrides,
});

describe('documented-bodies (after-suite check)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('passes bodies that conform, nullable members null and a null $ref member included', async () => {
    const { checkDocumentedBodies } = await load();
    const problems = checkDocumentedBodies({
      document: DOCUMENT,
      records: [
        record(GOOD_JOB),
        record({ ...GOOD_JOB, output: null, startedAt: '2026-07-13T09:30:00.000Z' }),
        record({ code: 'FET-1001' }, { status: 404 }),
        // A literal path wins over the template that would also match it.
        record({ items: [] }, { path: '/v1/fetcher/streams' }),
        record(undefined, { path: `/v1/fetcher/${ID}/result`, contentType: 'application/x-ndjson' }),
        record(undefined, { method: 'DELETE', path: `/v1/fetcher/${ID}/result-deleted`, status: 204, contentType: null }),
        // Not in the document: documented-statuses' concern.
        record({ anything: true }, { path: '/metrics' }),
        record({ anything: true }, { path: '/v1/nowhere' }),
      ],
    });
    expect(problems).toEqual([]);
  });

  it('names the route, status, JSON pointer and what is wrong for a wrong type, a missing member and an extra one', async () => {
    const { checkDocumentedBodies } = await load();
    const problems = checkDocumentedBodies({
      document: DOCUMENT,
      records: [
        record({ ...GOOD_JOB, rowCounts: { pg_source: { accounts: '3' } } }, { source: 'test/e2e/a.e2e.spec.ts' }),
        record({ id: ID, status: 'completed' }),
        record({ ...GOOD_JOB, output: { format: 'json', extra: 1 } }),
        record({ ...GOOD_JOB, status: 'lost' }),
      ],
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /^GET \/v1\/fetcher\/\{id\} 200: \/rowCounts\/pg_source\/accounts must be integer \(1×, e\.g\. .* in test\/e2e\/a\.e2e\.spec\.ts\)$/,
      ),
      expect.stringMatching(/^GET \/v1\/fetcher\/\{id\} 200: \/ must have required property 'rowCounts'/),
      expect.stringMatching(/^GET \/v1\/fetcher\/\{id\} 200: \/output must NOT have additional properties \(extra\)/),
      expect.stringMatching(/^GET \/v1\/fetcher\/\{id\} 200: \/status must be equal to one of the allowed values/),
    ]);
  });

  it('refuses a content type the answer does not document, and a body where it documents none', async () => {
    const { checkDocumentedBodies } = await load();
    const problems = checkDocumentedBodies({
      document: DOCUMENT,
      records: [
        record(undefined, { path: `/v1/fetcher/${ID}/result`, contentType: 'text/csv' }),
        record({ deleted: true }, { method: 'DELETE', path: `/v1/fetcher/${ID}/result-deleted`, status: 204 }),
      ],
    });
    expect(problems).toEqual([
      expect.stringContaining(
        'GET /v1/fetcher/{id}/result 200: content type text/csv is not documented (application/json, application/x-ndjson)',
      ),
      expect.stringContaining('DELETE /v1/fetcher/{id}/result-deleted 204: a application/json body, where the document gives none'),
    ]);
  });

  it('reads a run directory: the served document beside the recorded answers', async () => {
    const { default: check } = await load();
    const runDir = mkdtempSync(join(tmpdir(), 'documented-bodies-'));
    dirs.push(runDir);
    mkdirSync(join(runDir, 'responses'));
    writeFileSync(join(runDir, 'openapi.json'), JSON.stringify(DOCUMENT));
    writeFileSync(
      join(runDir, 'responses', '1.jsonl'),
      `${JSON.stringify(record({ id: 'not-a-uuid', status: 'pending', rowCounts: {} }))}\n`,
    );
    const problems = await check({ runDir, logDir: join(runDir, 'logs'), fullSuite: false, root: runDir });
    expect(problems).toEqual([expect.stringContaining('/id must match format "uuid"')]);
  });
});
