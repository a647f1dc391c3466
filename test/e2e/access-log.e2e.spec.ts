import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobService } from '../../src/job/job.service.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { accessLineOf, readLogLines, waitForLogLine } from '../helpers/log-lines.js';
import { ownLogFile } from '../helpers/test-log-file.js';
import { TEST_SECRETS } from '../helpers/test-secrets.js';

const ADMIN_KEY = TEST_SECRETS.ACCESS_LOG_ADMIN_KEY;
const OTHER_SECRET = TEST_SECRETS.ACCESS_LOG_X_API_KEY;
const QUERY_TOKEN = TEST_SECRETS.ACCESS_LOG_QUERY_TOKEN;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The access line and the request id, as an operator reading the app's LOG_FILE sees them. */
describe('access log and request ids', () => {
  const log = ownLogFile();
  const logFile = log.file;
  let fetcher: EmbeddedFetcher;
  const auth = { Authorization: `Bearer ${ADMIN_KEY}` };

  beforeAll(async () => {
    // A job lookup that fails the way a bug would: the honest way to get a 500 out of a healthy app.
    const brokenJobs = {
      get: () => Promise.reject(new Error('simulated defect in the job lookup')),
    };
    fetcher = await startEmbeddedFetcher(
      { AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN_KEY, LOG_FILE: logFile, LOG_LEVEL: 'log' },
      { overrides: [[JobService, brokenJobs]] },
    );
  });

  afterAll(async () => {
    await fetcher?.close();
    log.remove();
  });

  it('keeps a sane X-Request-Id, echoes it and logs one access line without the query string', async () => {
    const response = await fetcher.http
      .get(`/v1/management/connections?metadata.token=${QUERY_TOKEN}`)
      .set(auth)
      .set('X-API-Key', OTHER_SECRET)
      .set('Cookie', `session=${OTHER_SECRET}`)
      .set('X-Request-Id', 'abc');
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toBe('abc');

    const line = await waitForLogLine(logFile, accessLineOf('abc'));
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      requestId: 'abc',
      method: 'GET',
      route: '/v1/management/connections',
      path: '/v1/management/connections',
      status: 200,
    });
    expect(typeof line.time).toBe('number');
    expect(line.durationMs).toEqual(expect.any(Number));
    expect(line).not.toHaveProperty('req');
    expect(line).not.toHaveProperty('res');
    expect(readLogLines(logFile).filter(accessLineOf('abc'))).toHaveLength(1);
  });

  it('generates a v7 id when the caller sends none, and logs it', async () => {
    const response = await fetcher.http.get('/health');
    const id = response.headers['x-request-id'] as string;
    expect(id).toMatch(UUID_V7);
    expect(await waitForLogLine(logFile, accessLineOf(id))).toMatchObject({ route: '/health', status: 200 });
  });

  it.each([
    ['with spaces', 'not a token'],
    ['300 characters long', 'a'.repeat(300)],
    ['with quotes and angle brackets', '"><script>'],
  ])('replaces an X-Request-Id %s and never logs it', async (_what, hostile) => {
    const response = await fetcher.http.get('/health').set('X-Request-Id', hostile);
    const id = response.headers['x-request-id'] as string;
    expect(id).toMatch(UUID_V7);
    await waitForLogLine(logFile, accessLineOf(id));
    expect(readFileSync(logFile, 'utf8')).not.toContain(hostile);
  });

  it('answers a request with CR in its X-Request-Id (refused by the HTTP parser) with a new id and logs it', async () => {
    const raw = await rawRequest(fetcher, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: evil\rinjected\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    const id = /\r\nX-Request-Id: ([^\r]+)\r\n/i.exec(raw)?.[1] as string;
    expect(id).toMatch(UUID_V7);
    expect(await waitForLogLine(logFile, accessLineOf(id))).toMatchObject({ level: 30, route: 'unmatched', status: 400 });
    expect(readFileSync(logFile, 'utf8')).not.toContain('injected');
  });

  it('logs a 404 at info with the route "unmatched"', async () => {
    const response = await fetcher.http.get('/no/such/route').set('X-Request-Id', 'req-404');
    expect(response.status).toBe(404);
    expect(response.headers['x-request-id']).toBe('req-404');
    expect(await waitForLogLine(logFile, accessLineOf('req-404'))).toMatchObject({
      level: 30,
      route: 'unmatched',
      path: '/no/such/route',
      status: 404,
    });
  });

  it('echoes the id on a body the parser refuses, and logs that 400', async () => {
    const response = await fetcher.http
      .post('/v1/fetcher')
      .set(auth)
      .set('Content-Type', 'application/json')
      .set('X-Request-Id', 'req-bad-json')
      .send('{"dataRequest":');
    expect(response.status).toBe(400);
    expect(response.headers['x-request-id']).toBe('req-bad-json');
    expect(await waitForLogLine(logFile, accessLineOf('req-bad-json'))).toMatchObject({ level: 30, method: 'POST', status: 400 });
  });

  it('logs a 5xx at error, and the error logged while handling it carries the same request id', async () => {
    const id = '0190a000-0000-7000-8000-000000000001';
    const response = await fetcher.http.get(`/v1/fetcher/${id}`).set(auth).set('X-Request-Id', 'req-500');
    expect(response.status).toBe(500);
    expect(response.headers['x-request-id']).toBe('req-500');
    expect(await waitForLogLine(logFile, accessLineOf('req-500'))).toMatchObject({
      level: 50,
      route: '/v1/fetcher/:id',
      path: `/v1/fetcher/${id}`,
      status: 500,
    });
    const defect = await waitForLogLine(logFile, (line) => line.msg.includes('simulated defect in the job lookup'));
    expect(defect).toMatchObject({ level: 50, requestId: 'req-500', context: 'HttpErrors' });
  });

  it('writes no credential, cookie or query token anywhere in the file', async () => {
    await fetcher.http.get('/health').set(auth).set('X-API-Key', OTHER_SECRET).set('X-Request-Id', 'req-last');
    await waitForLogLine(logFile, accessLineOf('req-last'));
    const text = readFileSync(logFile, 'utf8');
    for (const secret of [ADMIN_KEY, OTHER_SECRET, QUERY_TOKEN]) expect(text).not.toContain(secret);
    // Every line of the file is JSON (readLogLines throws otherwise), Nest's own boot lines included.
    expect(readLogLines(logFile).some((line) => line.context === 'RoutesResolver')).toBe(true);
  });
});

/** Sends `request` as raw bytes (what no HTTP client would send) and returns the raw answer. */
async function rawRequest(fetcher: EmbeddedFetcher, request: string): Promise<string> {
  const server = fetcher.app.getHttpServer();
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}
