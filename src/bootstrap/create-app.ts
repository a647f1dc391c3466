import type { Server } from 'node:http';
import { ConsoleLogger, type INestApplication, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '../app.module.js';
import type { AppConfig } from '../config/app-config.js';
import { FetcherRole } from '../config/fetcher-role.js';
import { FetExceptionFilter } from '../common/errors/fet-exception.filter.js';
import { validationExceptionFactory } from '../common/errors/validation-exception.factory.js';
import { bodyLimitsMiddleware } from '../common/http/body-limits.middleware.js';
import { answerClientErrorsWithEnvelope } from '../common/http/client-error.handler.js';
import { RequestValidationPipe } from '../common/http/request-validation.pipe.js';
import { setupSwagger } from './swagger.js';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

export function createLogger(config: AppConfig): ConsoleLogger {
  return new ConsoleLogger({
    json: config.production,
    colors: !config.production && Boolean(process.stdout.isTTY),
    logLevels: LEVELS.slice(0, LEVELS.indexOf(config.logLevel as LogLevel) + 1),
  });
}

/** Builds the Nest application of the configured role, fully wired but not listening. */
export async function createFetcherApp(config: AppConfig, logger = createLogger(config)): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), { logger, bodyParser: false });
  return configureFetcherApp(app, config);
}

/** Everything an application needs beyond its module graph; tests that build the graph themselves call it too. */
export function configureFetcherApp(app: NestExpressApplication, config: AppConfig): INestApplication {
  app.useBodyParser('json', { limit: '1mb' });
  // Before any pipe: the DTO transform recurses, so depth and size are bounded first.
  app.use(bodyLimitsMiddleware);
  answerClientErrorsWithEnvelope(app.getHttpServer());
  keepIdleConnectionsOpen(app.getHttpServer());
  app.useGlobalFilters(new FetExceptionFilter());
  app.useGlobalPipes(
    new RequestValidationPipe({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      exceptionFactory: validationExceptionFactory,
    }),
  );
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
