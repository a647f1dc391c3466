import { randomBytes, randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPAN_PROCESSOR } from '../../src/common/tracing/tracing.module.js';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { SOURCE_FIXTURE_SQL } from '../helpers/source-fixtures.js';

const product = 'reporter';
/** registerPostgres sends this password; no span may carry it. */
const CONNECTION_PASSWORD = 'not-needed-with-trust-auth';
/** Never contacted: the in-memory processor replaces the OTLP one, the endpoint only turns tracing on. */
const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

const twoTables = (correlationId: string) => ({
  dataRequest: { mappedFields: { pg_main: { accounts: ['id', 'email'], 'accounting.invoices': ['id'] } } },
  metadata: { source: product, correlationId },
});

/** Polls the exporter until `done` holds for its spans: the job span ends just after the job reads as completed. */
async function spansUntil(exporter: InMemorySpanExporter, done: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const spans = exporter.getFinishedSpans();
    if (done(spans)) return spans;
    if (Date.now() > deadline) throw new Error(`spans so far: ${spans.map((span) => span.name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const jobSpanOf = (jobId: string) => (span: ReadableSpan) => span.name === 'job extract' && span.attributes['fetcher.job_id'] === jobId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;

/**
 * Embedded, the in-process queue hands the carrier over; with Redis, BullMQ stores it in the job's
 * message and the PostgreSQL store runs the publish inside its transaction.
 */
const SETUPS = [
  { name: 'embedded: SQLite store, in-process queue', distributed: false },
  { name: 'PostgreSQL store, BullMQ on Redis', distributed: true },
];

describe.each(SETUPS)('traces (OTEL_EXPORTER_OTLP_ENDPOINT set, in-memory exporter), $name', ({ distributed }) => {
  let source: TempDatabase;
  let store: TempDatabase | undefined;
  let fetcher: EmbeddedFetcher;
  const exporter = new InMemorySpanExporter();

  beforeAll(async () => {
    source = await createTempDatabase('e2e_tracing');
    await source.query(SOURCE_FIXTURE_SQL);
    store = distributed ? await createTempDatabase('e2e_tracing_store') : undefined;
    const env: Record<string, string> = store
      ? { DATABASE_URL: store.url, REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: `fetcher-test-tracing-${randomUUID().slice(0, 8)}` }
      : {};
    fetcher = await startEmbeddedFetcher({ ...ENDPOINT, ...env }, { overrides: [[SPAN_PROCESSOR, new SimpleSpanProcessor({ exporter })]] });
    await registerPostgres(fetcher.http, source, { configName: 'pg_main', product });
  });

  afterAll(async () => {
    await fetcher?.close();
    await Promise.all([source?.drop(), store?.drop()]);
  });

  it('records one trace from POST /v1/fetcher through the job: discovery, one span per table, seal and publish', async () => {
    const response = await fetcher.http.post('/v1/fetcher').send(twoTables('one-trace'));
    expect(response.status).toBe(202);
    const jobId = response.body.jobId as string;
    expect((await waitForJob(fetcher.http, jobId)).status).toBe('completed');
    const spans = await spansUntil(exporter, (all) => all.some(jobSpanOf(jobId)));

    const job = spans.find(jobSpanOf(jobId)) as ReadableSpan;
    const post = spans.find((span) => span.name === 'POST /v1/fetcher' && traceOf(span) === traceOf(job)) as ReadableSpan;
    expect(post).toBeDefined();
    expect(post.kind).toBe(SpanKind.SERVER);
    expect(post.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/v1/fetcher', 'http.response.status_code': 202 });
    expect(post.status.code).toBe(SpanStatusCode.UNSET);
    expect(post.parentSpanContext).toBeUndefined();
    expect(post.resource.attributes['service.name']).toBe('fetcher-all');

    // The carrier went through the queue: the job span is the POST's child, in its trace.
    expect(job.parentSpanContext?.spanId).toBe(idOf(post));
    expect(job.kind).toBe(SpanKind.CONSUMER);
    expect(job.attributes).toMatchObject({ 'fetcher.job_id': jobId, 'fetcher.job_attempt': 1, 'fetcher.job_outcome': 'completed' });

    const inTrace = spans.filter((span) => traceOf(span) === traceOf(job));
    const childrenOfJob = inTrace.filter((span) => span.parentSpanContext?.spanId === idOf(job));
    expect(childrenOfJob.map((span) => span.name).sort()).toEqual([
      'extraction.plan',
      'extraction.read_table',
      'extraction.read_table',
      'result.publish',
      'result.seal',
    ]);
    const plan = childrenOfJob.find((span) => span.name === 'extraction.plan') as ReadableSpan;
    expect(plan.attributes).toMatchObject({ 'fetcher.datasource_count': 1, 'fetcher.table_count': 2 });
    const reads = childrenOfJob
      .filter((span) => span.name === 'extraction.read_table')
      .map((span) => span.attributes)
      .sort((a, b) => String(a['fetcher.table']).localeCompare(String(b['fetcher.table'])));
    expect(reads).toEqual([
      { 'fetcher.datasource': 'pg_main', 'fetcher.table': 'accounting.invoices', 'fetcher.engine': 'POSTGRESQL', 'fetcher.rows': 2 },
      { 'fetcher.datasource': 'pg_main', 'fetcher.table': 'accounts', 'fetcher.engine': 'POSTGRESQL', 'fetcher.rows': 3 },
    ]);
    const seal = childrenOfJob.find((span) => span.name === 'result.seal') as ReadableSpan;
    expect(seal.attributes['fetcher.result_bytes']).toBeGreaterThan(0);
    // Seal before publish: the publish span runs inside the commit that follows the seal.
    const publish = childrenOfJob.find((span) => span.name === 'result.publish') as ReadableSpan;
    expect(publish.startTime[0] * 1e9 + publish.startTime[1]).toBeGreaterThanOrEqual(seal.endTime[0] * 1e9 + seal.endTime[1]);
    for (const span of inTrace) expect(span.status.code, span.name).not.toBe(SpanStatusCode.ERROR);

    expect(JSON.stringify(exporter.getFinishedSpans().map((span) => span.attributes))).not.toContain(CONNECTION_PASSWORD);
  });

  it('marks the job span and the step that failed with status ERROR and the API error, nothing more', async () => {
    const response = await fetcher.http.post('/v1/fetcher').send({
      dataRequest: { mappedFields: { pg_main: { no_such_table: ['id'] } } },
      metadata: { source: product, correlationId: 'failing' },
    });
    const failed = await waitForJob(fetcher.http, response.body.jobId);
    expect(failed.status).toBe('failed');
    const spans = await spansUntil(exporter, (all) => all.some(jobSpanOf(failed.id)));
    const job = spans.find(jobSpanOf(failed.id)) as ReadableSpan;
    const expected = { code: SpanStatusCode.ERROR, message: `${failed.error?.code}: ${failed.error?.message}` };
    expect(job.status).toEqual(expected);
    expect(job.attributes).toMatchObject({ 'fetcher.job_outcome': 'failed', 'fetcher.error_code': failed.error?.code });
    const plan = spans.find((span) => span.name === 'extraction.plan' && span.parentSpanContext?.spanId === idOf(job)) as ReadableSpan;
    expect(plan.status).toEqual(expected);
    expect(plan.events.map((event) => event.name)).toEqual(['exception']);
    expect(spans.filter((span) => traceOf(span) === traceOf(job)).map((span) => span.name)).not.toContain('result.seal');
  });

  it("continues the caller's trace when the request carries a W3C traceparent", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const response = await fetcher.http
      .post('/v1/fetcher')
      .set('traceparent', `00-${traceId}-${callerSpanId}-01`)
      .send(twoTables('caller-trace'));
    expect(response.status).toBe(202);
    const jobId = response.body.jobId as string;
    await waitForJob(fetcher.http, jobId);
    const spans = await spansUntil(exporter, (all) => all.some(jobSpanOf(jobId)));

    const post = spans.find((span) => span.name === 'POST /v1/fetcher' && traceOf(span) === traceId) as ReadableSpan;
    expect(post).toBeDefined();
    expect(post.parentSpanContext).toMatchObject({ traceId, spanId: callerSpanId, isRemote: true });
    const job = spans.find(jobSpanOf(jobId)) as ReadableSpan;
    expect(traceOf(job)).toBe(traceId);
    expect(job.parentSpanContext?.spanId).toBe(idOf(post));
  });

  it('names a request no route matched by `unmatched` and does not mark a 4xx as an error', async () => {
    expect((await fetcher.http.get('/no/such/route/4711')).status).toBe(404);
    const spans = await spansUntil(exporter, (all) => all.some((span) => span.name === 'GET unmatched'));
    const notFound = spans.find((span) => span.name === 'GET unmatched') as ReadableSpan;
    expect(notFound.attributes).toMatchObject({ 'http.route': 'unmatched', 'http.response.status_code': 404 });
    expect(notFound.status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe('traces off (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
  let source: TempDatabase;
  let fetcher: EmbeddedFetcher;
  const exporter = new InMemorySpanExporter();

  beforeAll(async () => {
    source = await createTempDatabase('e2e_tracing_off');
    await source.query(SOURCE_FIXTURE_SQL);
    // The processor is offered, yet without the endpoint nothing may reach it.
    fetcher = await startEmbeddedFetcher({}, { overrides: [[SPAN_PROCESSOR, new SimpleSpanProcessor({ exporter })]] });
    await registerPostgres(fetcher.http, source, { configName: 'pg_main', product });
  });

  afterAll(async () => {
    await fetcher?.close();
    await source?.drop();
  });

  it('records no span for requests or jobs, and jobs still complete', async () => {
    const response = await fetcher.http
      .post('/v1/fetcher')
      .set('traceparent', `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`)
      .send(twoTables('no-trace'));
    expect(response.status).toBe(202);
    expect((await waitForJob(fetcher.http, response.body.jobId)).status).toBe('completed');
    // Long enough for the job span to have ended, had there been one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
