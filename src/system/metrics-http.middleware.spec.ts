import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePrometheusText, samplesOf, valueOf } from '../../test/helpers/prometheus-text.js';
import { httpMetricsMiddleware } from './metrics-http.middleware.js';
import { MetricsService } from './metrics.service.js';

function appWithMetrics() {
  const metrics = new MetricsService();
  const app = express();
  let entered: () => void = () => undefined;
  const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
  app.use(httpMetricsMiddleware(metrics));
  app.get('/v1/fetcher/:id', (req, res) => void res.status(req.params.id === 'missing' ? 404 : 200).json({}));
  app.post('/v1/fetcher', (_req, res) => void res.status(202).json({}));
  app.get('/slow', () => entered());
  const scrape = async () => parsePrometheusText(await metrics.registry.metrics());
  return { app, scrape, handlerEntered };
}

describe('httpMetricsMiddleware', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('counts requests by route template and status, never by raw path, and times them', async () => {
    const { app, scrape } = appWithMetrics();
    await request(app).get('/v1/fetcher/0190f3c2-0000-7000-8000-000000000001').expect(200);
    await request(app).get('/v1/fetcher/0190f3c2-0000-7000-8000-000000000002').expect(200);
    await request(app).get('/v1/fetcher/missing').expect(404);
    await request(app).post('/v1/fetcher').send({}).expect(202);
    const samples = await scrape();
    const requests = samplesOf(samples, 'fetcher_http_requests_total');
    expect(requests.map((sample) => [sample.labels, sample.value])).toEqual([
      [{ method: 'GET', route: '/v1/fetcher/:id', status: '200' }, 2],
      [{ method: 'GET', route: '/v1/fetcher/:id', status: '404' }, 1],
      [{ method: 'POST', route: '/v1/fetcher', status: '202' }, 1],
    ]);
    expect(valueOf(samples, 'fetcher_http_request_duration_seconds_count', { method: 'GET', route: '/v1/fetcher/:id' })).toBe(3);
    expect(valueOf(samples, 'fetcher_http_request_duration_seconds_sum', { method: 'POST', route: '/v1/fetcher' })).toBeGreaterThan(0);
  });

  it('puts every path no route matched under one label value, and odd methods under OTHER', async () => {
    const { app, scrape } = appWithMetrics();
    await request(app).get('/no/such/path/1').expect(404);
    await request(app).get('/no/such/path/2').expect(404);
    await request(app).search('/v1/fetcher').expect(404);
    const requests = samplesOf(await scrape(), 'fetcher_http_requests_total');
    expect(requests.map((sample) => [sample.labels, sample.value])).toEqual([
      [{ method: 'GET', route: 'unmatched', status: '404' }, 2],
      [{ method: 'OTHER', route: 'unmatched', status: '404' }, 1],
    ]);
  });

  it('records a request whose client went away before the answer as aborted, once', async () => {
    const { app, scrape, handlerEntered } = appWithMetrics();
    server = app.listen(0);
    await new Promise((resolve) => server?.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const client = httpRequest({ port, path: '/slow' });
    client.on('error', () => undefined);
    client.end();
    await handlerEntered;
    client.destroy();
    for (let waited = 0; waited < 2_000; waited += 20) {
      if (valueOf(await scrape(), 'fetcher_http_requests_total') !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const requests = samplesOf(await scrape(), 'fetcher_http_requests_total');
    expect(requests.map((sample) => [sample.labels, sample.value])).toEqual([[{ method: 'GET', route: '/slow', status: 'aborted' }, 1]]);
  });
});
