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

/** The port this role listens on: the API port, or the worker's health/metrics port. */
export function listenPort(config: AppConfig): number {
  return config.role === FetcherRole.Worker ? config.http.workerPort : config.http.port;
}
