import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';

/**
 * An idle keep-alive connection outlives Node's 5 s default: a client (or a load balancer) that
 * reuses one after a few seconds of other work must get an answer, not "socket closed".
 */
describe('HTTP keep-alive', () => {
  let fetcher: EmbeddedFetcher;
  let port: number;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher();
    const server = fetcher.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await fetcher?.close();
  });

  const health = () =>
    new Promise<{ status: number | undefined; reusedSocket: boolean }>((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, path: '/health', agent }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode, reusedSocket: request.reusedSocket }));
      });
      request.on('error', reject);
    });

  it('answers on a connection that stayed idle for 6 s, the same connection', async () => {
    expect(await health()).toEqual({ status: 200, reusedSocket: false });
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(await health()).toEqual({ status: 200, reusedSocket: true });
  }, 20_000);
});
