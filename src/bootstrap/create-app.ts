import type { Server } from 'node:http';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { NativeLogger } from 'nestjs-pino';
import { AppModule } from '../app.module.js';
import type { AppConfig } from '../config/app-config.js';
import { FetcherRole } from '../config/fetcher-role.js';
import { FetExceptionFilter } from '../common/errors/fet-exception.filter.js';
import { bodyLimitsMiddleware } from '../common/http/body-limits.middleware.js';
import { answerClientErrorsWithEnvelope } from '../common/http/client-error.handler.js';
import { globalValidationPipe } from '../common/http/request-validation.pipe.js';
import { accessLogMiddleware, logRefusedRequest } from '../common/logging/access-log.middleware.js';
import { httpTracingMiddleware } from '../common/tracing/http-tracing.middleware.js';
import { Tracing } from '../common/tracing/tracing.js';
import { httpMetricsMiddleware } from '../system/metrics-http.middleware.js';
import { MetricsService } from '../system/metrics.service.js';
import { setupSwagger } from './swagger.js';

/**
 * Builds the Nest application of the configured role, fully wired but not listening. Until the
 * application's own pino logger exists, Nest's boot lines go to `bootLogger` as they happen (main.ts:
 * an operator watching a boot that waits for its database sees the retries), or are held and
 * then written through the application's logger.
 */
export async function createFetcherApp(config: AppConfig, bootLogger?: LoggerService): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config),
    bootLogger ? { logger: bootLogger, bodyParser: false } : { bufferLogs: true, bodyParser: false },
  );
  return configureFetcherApp(app, config);
}

/** Everything an application needs beyond its module graph; tests that build the graph themselves call it too. */
export function configureFetcherApp(app: NestExpressApplication, config: AppConfig): INestApplication {
  app.useLogger(app.get(NativeLogger));
  // request.ip, which failed authentications are counted under: the socket's peer unless TRUST_PROXY names the proxies.
  app.set('trust proxy', config.http.trustProxy);
  // First of all: the request id, the access line and the HTTP metrics cover what the parser and the limits refuse too.
  app.use(accessLogMiddleware());
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  app.useBodyParser('json', { limit: '1mb' });
  // Before any pipe: the DTO transform recurses, so depth and size are bounded first.
  app.use(bodyLimitsMiddleware);
  // After the parsers: the handler, and every span it starts, runs inside the request's span.
  app.use(httpTracingMiddleware(app.get(Tracing)));
  answerClientErrorsWithEnvelope(app.getHttpServer(), logRefusedRequest);
  keepIdleConnectionsOpen(app.getHttpServer());
  app.useGlobalFilters(new FetExceptionFilter());
  app.useGlobalPipes(globalValidationPipe());
  app.enableShutdownHooks();
  if (config.role !== FetcherRole.Worker) setupSwagger(app, config);
  return app;
}

/**
 * Node closes an idle keep-alive connection after 5 s. A client or load balancer (whose idle
 * timeout is commonly 60 s) that reuses it at that instant gets "socket closed" for a request the
 * server never read; a result download after a few seconds of other work hit exactly that. Idle
 * connections are kept longer than such clients keep them, so it is the client that closes them.
 * Shutdown is unaffected: server.close() closes idle connections at once.
 */
const KEEP_ALIVE_IDLE_MS = 65_000;

function keepIdleConnectionsOpen(server: Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_IDLE_MS;
  // Must exceed the keep-alive timeout, or a slow request on a reused connection is cut first.
  server.headersTimeout = KEEP_ALIVE_IDLE_MS + 1_000;
}

/** The port this role listens on: the API port, or the worker's health/metrics port. */
export function listenPort(config: AppConfig): number {
  return config.role === FetcherRole.Worker ? config.http.workerPort : config.http.port;
}
