import { Inject, Injectable, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { openLogDestination } from './log-destination.js';
import { pinoLevelOf } from './log-level.js';
import { logSink, type LogDestination } from './log-sink.js';
import { loggerParams } from './logger-options.js';

const LOG_DESTINATION = Symbol('LOG_DESTINATION');

/**
 * Lives in nestjs-pino's global module, whose shutdown hooks Nest runs after those of every
 * module that logs while it stops (the root's lifecycle, the worker's drain): the last lines
 * are written out before Nest may kill the process with the signal it received.
 */
@Injectable()
class LogDestinationLifecycle implements OnApplicationShutdown {
  constructor(@Inject(LOG_DESTINATION) private readonly destination: LogDestination) {}

  async onApplicationShutdown(): Promise<void> {
    logSink.detach(this.destination);
    // Not flushSync() first: it writes the buffer while an asynchronous write may still be under
    // way, and the lines land out of order. end() writes everything in order, and is awaited.
    await this.destination.end();
  }
}

/** This application's destination (LOG_FILE or stdout, JSON or pretty), attached to the process's sink while it runs. */
async function attachDestination(config: AppConfig): Promise<LogDestination> {
  const destination = await openLogDestination(config);
  logSink.attach(destination);
  // The root logger outlives an application in a process that boots several (tests): the newest sets the level.
  if (PinoLogger.root) PinoLogger.root.level = pinoLevelOf(config.logLevel);
  return destination;
}

/** nestjs-pino, fed from the typed config; imported once, by the root module, right after the config. */
export const LoggingModule = {
  forRoot(): DynamicModule {
    return LoggerModule.forRootAsync({
      providers: [{ provide: LOG_DESTINATION, inject: [APP_CONFIG], useFactory: attachDestination }, LogDestinationLifecycle],
      // The destination is injected only so that it is attached before the root logger writes.
      inject: [APP_CONFIG, LOG_DESTINATION],
      useFactory: (config: AppConfig) => loggerParams(config),
    });
  },
};
