import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';

/** An answer read as the bytes on the wire: no client here decodes a Content-Encoding (fetch and supertest both would). */
export interface RawAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** The connection failed before the body ended (a download the server cut). */
  readonly cut: boolean;
  readonly sha256: string;
}

/** Listens on an ephemeral loopback port (once) and returns the base URL. */
export async function listenLocally(app: INestApplication): Promise<string> {
  const server = app.getHttpServer() as http.Server;
  if (!server.listening) await app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** GET `url` with node:http, which leaves the body as sent. */
export function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let cut = false;
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('aborted', () => (cut = true));
      response.on('error', () => (cut = true));
      response.on('close', () => {
        const body = Buffer.concat(chunks);
        cut ||= !response.complete;
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body,
          cut,
          sha256: createHash('sha256').update(body).digest('hex'),
        });
      });
    });
    request.on('error', reject);
  });
}
