import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';

/** One POST a receiver got. */
export interface ReceivedDelivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly json: Record<string, unknown>;
  readonly answered: number | 'hung';
}

/** Decides the answer of one POST (the list of earlier ones included); 'hang' never answers. */
export type Answer = (delivery: Omit<ReceivedDelivery, 'answered'>, earlier: readonly ReceivedDelivery[]) => number | 'hang';

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedDelivery[];
  close(): Promise<void>;
}

/** A loopback HTTP receiver recording every POST with its headers and exact body bytes. */
export async function startWebhookReceiver(answer: Answer = () => 200, host = '127.0.0.1'): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const delivery = { headers: request.headers, body, json: JSON.parse(body.toString('utf8')) as Record<string, unknown> };
      const status = answer(delivery, received);
      received.push({ ...delivery, answered: status === 'hang' ? 'hung' : status });
      if (status === 'hang') hung.add(response);
      else response.writeHead(status).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host}:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Independent of src/: what is wrong with a delivery's signatures under `secret`, or undefined
 * (docs/webhooks.md, "Signatures"). Both are keyed with the decoded base64 part of the secret.
 */
export function webhookSignatureProblem(secret: string, delivery: Pick<ReceivedDelivery, 'headers' | 'body'>): string | undefined {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const header = (name: string) => {
    const value = delivery.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const t = header('t');
  if (!t || !/^\d+$/.test(t)) return 'no t header';
  if (header('signature-version') !== 'v1') return 'signature-version is not v1';
  const legacy = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${t}.`), delivery.body]))
    .digest('hex');
  const sent = header('x-message-signature') ?? '';
  if (sent.length !== legacy.length || !timingSafeEqual(Buffer.from(sent), Buffer.from(legacy)))
    return 'x-message-signature does not verify';
  const id = header('webhook-id');
  if (header('webhook-timestamp') !== t) return 'webhook-timestamp differs from t';
  const standard = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${t}.`), delivery.body]))
    .digest('base64');
  const signatures = (header('webhook-signature') ?? '').split(' ');
  if (!signatures.includes(`v1,${standard}`)) return 'webhook-signature does not verify';
  return undefined;
}

/** Polls until `check` holds. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
