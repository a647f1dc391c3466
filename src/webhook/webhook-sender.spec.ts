import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpWebhookSender } from './webhook-sender.js';

let servers: Server[] = [];
async function serve(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as { port: number }).port;
}
afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
});

const sender = new HttpWebhookSender({ connectTimeoutMs: 300, responseTimeoutMs: 300 });
/** A name that only the pinned address makes reachable: the sender must not ask DNS. */
const request = (port: number, path = '/hook') => ({
  url: new URL(`http://receiver.invalid:${port}${path}`),
  target: { host: 'receiver.invalid', address: '127.0.0.1', family: 4 as const },
  headers: { 'content-type': 'application/json' },
  body: Buffer.from('{"a":1}'),
});

describe('HttpWebhookSender', () => {
  it('posts the body to the pinned address and reports the status', async () => {
    let seen: { host?: string; body?: string; path?: string } = {};
    const port = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen = { host: req.headers.host, body: Buffer.concat(chunks).toString(), path: req.url };
        res.writeHead(204).end();
      });
    });
    expect(await sender.send(request(port, '/hook?x=1'))).toEqual({ statusCode: 204 });
    expect(seen).toEqual({ host: `receiver.invalid:${port}`, body: '{"a":1}', path: '/hook?x=1' });
  });

  it('does not follow a redirect: the 3xx is the result', async () => {
    let followed = 0;
    const port = await serve((req, res) => {
      if (req.url === '/elsewhere') followed++;
      res.writeHead(302, { location: '/elsewhere' }).end();
    });
    expect(await sender.send(request(port))).toEqual({ statusCode: 302 });
    expect(followed).toBe(0);
  });

  it('gives up on a receiver that does not answer within the response deadline', async () => {
    const port = await serve(() => undefined);
    const result = await sender.send(request(port));
    expect(result).toEqual({ error: 'no complete response within 300 ms' });
  });

  it('gives up on a TLS receiver whose handshake does not complete within the connect deadline', async () => {
    // A TCP listener that accepts and says nothing: the TLS handshake, part of the connect, never ends.
    const sockets: Socket[] = [];
    const listener = createNetServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    const { port } = listener.address() as { port: number };
    try {
      const result = await sender.send({ ...request(port), url: new URL(`https://receiver.invalid:${port}/hook`) });
      expect(result).toEqual({ error: 'connect timeout after 300 ms' });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('reports a refused connection as an error, not a throw', async () => {
    const port = await serve(() => undefined);
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const result = await sender.send(request(port));
    expect('error' in result && result.error).toMatch(/^ECONNREFUSED/);
  });
});
