import { randomBytes } from 'node:crypto';
import { request as httpRequest, Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { freePort } from '../helpers/fetcher-process.js';
import { parsePrometheusText, valueOf } from '../helpers/prometheus-text.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

/** One GET on a connection of its own, or on the given keep-alive agent: status, headers and body text. */
function get(port: number, path: string, agent?: Agent): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, agent: agent ?? false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), text }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('METRICS_ACCESS=operator (AUTH_MODE=apikey)', () => {
  let fetcher: EmbeddedFetcher;
  let productKey: string;

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN_KEY, METRICS_ACCESS: 'operator' });
    const issued = await fetcher.http.post('/v1/management/api-keys').set(bearer(ADMIN_KEY)).send({ productName: 'reporter', name: 'k' });
    expect(issued.status).toBe(201);
    productKey = issued.body.key as string;
  });
  afterAll(async () => fetcher?.close());

  it('refuses a scrape without a credential (401) and with a product key (403), and serves an operator', async () => {
    const anonymous = await fetcher.http.get('/metrics');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'FET-0010' });
    const product = await fetcher.http.get('/metrics').set(bearer(productKey));
    expect(product.status).toBe(403);
    expect(product.body).toMatchObject({ code: 'FET-0011' });
    const operator = await fetcher.http.get('/metrics').set(bearer(ADMIN_KEY));
    expect(operator.status).toBe(200);
    expect(valueOf(parsePrometheusText(operator.text), 'fetcher_jobs', { status: 'pending' })).toBe(0);
  });

  it('keeps /health and /readyz open', async () => {
    expect((await fetcher.http.get('/health')).status).toBe(200);
    expect((await fetcher.http.get('/readyz')).status).toBe(200);
  });
});

describe('METRICS_PORT: /metrics on a port of its own', () => {
  let fetcher: EmbeddedFetcher;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    fetcher = await startEmbeddedFetcher({ METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.1' });
  });
  afterAll(async () => fetcher?.close());

  it('serves the metrics there, without a credential, and counts its scrapes', async () => {
    await get(metricsPort, '/metrics');
    const scrape = await get(metricsPort, '/metrics?x=1');
    expect(scrape.status).toBe(200);
    expect(scrape.type).toContain('text/plain');
    const samples = parsePrometheusText(scrape.text);
    expect(valueOf(samples, 'fetcher_jobs', { status: 'completed' })).toBe(0);
    expect(valueOf(samples, 'fetcher_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).toBe(1);
  });

  it('answers anything else there with a 404 envelope, and no longer serves /metrics on the API port', async () => {
    const other = await get(metricsPort, '/readyz');
    expect(other.status).toBe(404);
    expect(JSON.parse(other.text)).toEqual({ code: 'FET-1001', title: 'Not Found', message: 'route not found' });
    const api = await fetcher.http.get('/metrics');
    expect(api.status).toBe(404);
    expect(api.body).toEqual({ code: 'FET-1001', title: 'Not Found', message: 'route not found' });
    expect((await fetcher.http.get('/health')).status).toBe(200);
  });

  it('closes the port at shutdown, though a scraper holds a keep-alive connection open', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(metricsPort, '/metrics', agent)).status).toBe(200);
    await fetcher.close();
    await expect(get(metricsPort, '/metrics')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    agent.destroy();
  });
});
