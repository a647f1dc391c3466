import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { LoggerOptions } from 'pino';
import type { Options as HttpOptions } from 'pino-http';
import type { AppConfig } from '../../config/app-config.js';
import { pinoLevelOf } from './log-level.js';
import { logSink } from './log-sink.js';
import { requestIdFor } from './request-id.js';
import { scrubSecrets } from './scrub-secrets.js';

/**
 * A safety net only: nothing of ours logs a request's headers (the serializers below drop them),
 * but a line that carried some anyway would show these as "[redacted]".
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'authorization',
  'password',
  '*.password',
];

/** What of a request may be logged at all: its method and its path without the query string, which can carry tokens. */
export function requestForLog(request: { method?: string; url?: string; originalUrl?: string }): { method?: string; path: string } {
  return { method: request.method, path: pathWithoutQuery(request.originalUrl ?? request.url ?? '') };
}

const MAX_LOGGED_PATH = 512;

export function pathWithoutQuery(url: string): string {
  const path = url.split('?', 1)[0] ?? '';
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path;
}

/** The pino options every logger of the process shares: level, redaction, serializers, the secret scrubber. */
export function pinoOptions(config: Pick<AppConfig, 'logLevel'>): LoggerOptions {
  return {
    level: pinoLevelOf(config.logLevel),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: requestForLog,
      res: (response: { statusCode?: number }) => ({ status: response.statusCode }),
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, scrubArguments(args as unknown[]) as Parameters<typeof method>);
      },
    },
  };
}

/**
 * The nestjs-pino parameters: pino-http binds `requestId` (and nothing else of the request) to
 * every line logged while a request is handled; the access line itself is written by
 * access-log.middleware.ts, which runs before the body parser and so also sees the requests it
 * refuses. Messages keep Nest's `(message, fields?, context)` order: NativeLogger merges the
 * fields object into the line.
 */
export function loggerParams(config: Pick<AppConfig, 'logLevel'>): Params {
  const http: HttpOptions = {
    ...pinoOptions(config),
    genReqId: (request: IncomingMessage) => request.id ?? requestIdFor(request.headers['x-request-id']),
    customAttributeKeys: { reqId: 'requestId' },
    quietReqLogger: true,
    quietResLogger: true,
    autoLogging: false,
  };
  return { pinoHttp: [http, logSink], nativeLogger: { structuredParams: true, flattenParams: true } };
}

function scrubArguments(args: unknown[]): unknown[] {
  return args.map((arg, index) => {
    if (typeof arg === 'string') return scrubSecrets(arg);
    if (index === 0 && isPlainObject(arg)) return scrubFields(arg);
    return arg;
  });
}

/** One level deep: the fields we log are flat (ids, counts, a stack). */
function scrubFields(fields: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== 'string') continue;
    const scrubbed = scrubSecrets(value);
    if (scrubbed !== value) (copy ??= { ...fields })[key] = scrubbed;
  }
  return copy ?? fields;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
