import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { EgressTarget } from '../engine/egress/egress-policy.js';

/** One POST to a receiver, to an address already checked. */
export interface WebhookRequest {
  readonly url: URL;
  /** The address the host was resolved to and checked: the only one dialled. */
  readonly target: EgressTarget;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

export type SendResult = { readonly statusCode: number } | { readonly error: string };

export interface SenderDeadlines {
  readonly connectTimeoutMs: number;
  /** From the connect to the end of the response. */
  readonly responseTimeoutMs: number;
}

/** How a delivery reaches a receiver (a port: the dispatcher's specs replace it). */
export abstract class WebhookSender {
  abstract send(request: WebhookRequest): Promise<SendResult>;
}

/** Answers past this many bytes are not read further: only the status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * node:http(s) POST pinned to the checked address: `lookup` answers only that address, so DNS is
 * not asked again between the check and the dial (DNS rebinding); TLS still verifies the host
 * name (servername). Redirects are never followed (node does not), a 3xx is a failed attempt.
 * Never rejects: every failure is a result with its reason.
 */
export class HttpWebhookSender extends WebhookSender {
  constructor(private readonly deadlines: SenderDeadlines) {
    super();
  }

  send(req: WebhookRequest): Promise<SendResult> {
    const { url, target } = req;
    const https = url.protocol === 'https:';
    const lookup: LookupFunction = (_host, options, callback) => {
      if (options.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        clearTimeout(responseTimer);
        resolve(result);
      };
      const options = {
        method: 'POST',
        host: target.host,
        port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: { ...req.headers, 'content-length': String(req.body.length) },
        lookup,
        agent: false as const,
        ...(https ? { servername: target.host } : {}),
      };
      const client = https ? httpsRequest(options) : httpRequest(options);
      let responseTimer: NodeJS.Timeout | undefined;
      const connectTimer = setTimeout(() => {
        client.destroy();
        finish({ error: `connect timeout after ${this.deadlines.connectTimeoutMs} ms` });
      }, this.deadlines.connectTimeoutMs);
      client.on('socket', (socket) => {
        const connected = () => {
          clearTimeout(connectTimer);
          responseTimer = setTimeout(() => {
            client.destroy();
            finish({ error: `no complete response within ${this.deadlines.responseTimeoutMs} ms` });
          }, this.deadlines.responseTimeoutMs);
        };
        socket.once(https ? 'secureConnect' : 'connect', connected);
      });
      client.on('error', (error: NodeJS.ErrnoException) => finish({ error: describe(error) }));
      client.on('response', (response: IncomingMessage) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) {
            response.destroy();
            finish({ statusCode: response.statusCode ?? 0 });
          }
        });
        response.on('end', () => finish({ statusCode: response.statusCode ?? 0 }));
        response.on('error', (error) => finish({ error: describe(error) }));
      });
      client.end(req.body);
    });
  }
}

/** A network error's code and message, never the request's headers (they carry the signature). */
function describe(error: NodeJS.ErrnoException): string {
  return (error.code ? `${error.code}: ` : '') + error.message.slice(0, 300);
}
