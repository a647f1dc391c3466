import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import express from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FetCode } from '../../engine/errors/fet-code.js';
import { ServiceUnavailableError } from '../errors/request-errors.js';
import { httpTracingMiddleware } from './http-tracing.middleware.js';
import { otlpTracesUrl, startTracing } from './tracer-provider.js';
import { Tracing } from './tracing.js';

const IDENTITY = { serviceName: 'fetcher-test', serviceVersion: '0.0.0', role: 'all' };

function enabledTracing() {
  const exporter = new InMemorySpanExporter();
  const tracing = Tracing.enabled(startTracing(new SimpleSpanProcessor({ exporter }), IDENTITY));
  return { tracing, spans: () => exporter.getFinishedSpans() };
}

const byName = (spans: ReadableSpan[], name: string) => spans.find((span) => span.name === name) as ReadableSpan;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe('Tracing', () => {
  const started: Tracing[] = [];
  const start = () => {
    const traced = enabledTracing();
    started.push(traced.tracing);
    return traced;
  };
  afterEach(async () => {
    for (const tracing of started.splice(0)) await tracing.shutdown();
  });

  it('nests spans started inside a span, across awaits, and carries the trace through a carrier', async () => {
    const { tracing, spans } = start();
    let carrier: ReturnType<Tracing['carrier']>;
    await tracing.inSpan('outer', { a: 1 }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await tracing.inSpan('inner', {}, async () => {
        carrier = tracing.carrier();
      });
    });
    await tracing.continueTrace(carrier, 'remote', {}, async () => undefined);
    const [outer, inner, remote] = ['outer', 'inner', 'remote'].map((name) => byName(spans(), name));
    expect(parentOf(inner)).toBe(idOf(outer));
    expect(carrier?.traceparent).toMatch(new RegExp(`^00-${inner.spanContext().traceId}-${idOf(inner)}-01$`));
    expect(remote.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(parentOf(remote)).toBe(idOf(inner));
    expect(remote.kind).toBe(SpanKind.CONSUMER);
  });

  it('starts a new trace for work without a carrier, whatever span happens to be active', async () => {
    const { tracing, spans } = start();
    await tracing.inSpan('request', {}, () => tracing.continueTrace(undefined, 'redelivery', {}, async () => undefined));
    const redelivery = byName(spans(), 'redelivery');
    expect(redelivery.parentSpanContext).toBeUndefined();
    expect(redelivery.spanContext().traceId).not.toBe(byName(spans(), 'request').spanContext().traceId);
  });

  it('records a failure with a message safe to export: a FetcherError by its API message, anything else by its class only', async () => {
    const { tracing, spans } = start();
    const driverError = new Error('password authentication failed for user "app" (password=hunter2)');
    await expect(tracing.inSpan('driver', {}, () => Promise.reject(driverError))).rejects.toBe(driverError);
    const known = new ServiceUnavailableError('the job queue is unavailable');
    await expect(tracing.inSpan('known', {}, () => Promise.reject(known))).rejects.toBe(known);

    const driver = byName(spans(), 'driver');
    expect(driver.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Error' });
    expect(JSON.stringify([driver.events, driver.attributes, driver.status])).not.toContain('hunter2');
    const fetcher = byName(spans(), 'known');
    expect(fetcher.status).toEqual({ code: SpanStatusCode.ERROR, message: `${FetCode.ServiceUnavailable}: the job queue is unavailable` });
    expect(fetcher.attributes['fetcher.error_code']).toBe(FetCode.ServiceUnavailable);
  });

  it('keeps context working for the apps still running when one shuts down, and can be enabled again after the last', async () => {
    const first = enabledTracing();
    const second = enabledTracing();
    await first.tracing.shutdown();
    await second.tracing.inSpan('parent', {}, () => second.tracing.inSpan('child', {}, async () => undefined));
    expect(parentOf(byName(second.spans(), 'child'))).toBe(idOf(byName(second.spans(), 'parent')));
    await second.tracing.shutdown();

    const third = start();
    await third.tracing.inSpan('parent', {}, () => third.tracing.inSpan('child', {}, async () => undefined));
    expect(parentOf(byName(third.spans(), 'child'))).toBe(idOf(byName(third.spans(), 'parent')));
  });

  it('runs a bound function in the context it was bound in, whoever calls it later', async () => {
    const { tracing, spans } = start();
    const bound = await tracing.inSpan('outer', {}, async () => tracing.bind(() => tracing.carrier()));
    expect(tracing.carrier()).toBeUndefined();
    expect(bound()?.traceparent).toContain(idOf(byName(spans(), 'outer')));
  });

  it('samples as OTEL_TRACES_SAMPLER says, which the SDK no longer reads itself', async () => {
    vi.stubEnv('OTEL_TRACES_SAMPLER', 'parentbased_traceidratio');
    vi.stubEnv('OTEL_TRACES_SAMPLER_ARG', '0');
    try {
      const { tracing, spans } = start();
      await tracing.inSpan('root', {}, async () => undefined);
      await tracing.continueTrace(
        { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        'sampled',
        {},
        async () => undefined,
      );
      expect(spans().map((span) => span.name)).toEqual(['sampled']);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('does nothing when disabled: the function runs, no carrier is made', async () => {
    const tracing = Tracing.disabled();
    expect(await tracing.inSpan('x', {}, async () => 42)).toBe(42);
    expect(
      await tracing.continueTrace({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, 'y', {}, async () => 7),
    ).toBe(7);
    expect(tracing.carrier()).toBeUndefined();
    expect(tracing.enabled).toBe(false);
  });

  it('sends spans to <endpoint>/v1/traces, as the OTel spec reads OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(otlpTracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(otlpTracesUrl('https://otel.example.com/base/')).toBe('https://otel.example.com/base/v1/traces');
  });
});

describe('httpTracingMiddleware', () => {
  let tracing: Tracing | undefined;
  afterEach(async () => tracing?.shutdown());

  function tracedApp() {
    const traced = enabledTracing();
    tracing = traced.tracing;
    const app = express();
    app.use(httpTracingMiddleware(traced.tracing));
    app.get('/v1/fetcher/:id', (req, res, next) => {
      // After a timer: the handler's span must still find its request's span active.
      setTimeout(() => {
        traced.tracing
          .inSpan('work', {}, async () => undefined)
          .then(() => void res.status(req.params.id === 'broken' ? 500 : 200).json({}))
          .catch(next);
      }, 5);
    });
    return { app, spans: traced.spans };
  }

  it('names the server span by route template, marks a 5xx failed, and parents spans of the handler', async () => {
    const { app, spans } = tracedApp();
    await request(app).get('/v1/fetcher/broken').expect(500);
    await request(app).get('/v1/fetcher/fine').expect(200);
    const [failed, fine] = spans().filter((span) => span.kind === SpanKind.SERVER);
    expect(failed.name).toBe('GET /v1/fetcher/:id');
    expect(failed.attributes).toEqual({ 'http.request.method': 'GET', 'http.route': '/v1/fetcher/:id', 'http.response.status_code': 500 });
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(fine.status.code).toBe(SpanStatusCode.UNSET);
    const work = spans().filter((span) => span.name === 'work');
    expect(work.map(parentOf)).toEqual([idOf(failed), idOf(fine)]);
  });

  it("joins the caller's trace from its traceparent header", async () => {
    const { app, spans } = tracedApp();
    await request(app).get('/v1/fetcher/x').set('traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01').expect(200);
    const server = spans().find((span) => span.kind === SpanKind.SERVER) as ReadableSpan;
    expect(server.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(server.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
  });
});
