import type { LoggerService } from '@nestjs/common';
import { pino, type Level, type Logger } from 'pino';
import type { AppConfig } from '../../config/app-config.js';
import { openLogDestination } from './log-destination.js';
import { pinoOptions } from './logger-options.js';

export interface BootLogger {
  /** Lines of main.ts itself, in context `Bootstrap`. */
  readonly logger: Logger;
  /** For Nest until the application's own logger takes over: what Nest says when the application cannot be built. */
  readonly nest: LoggerService;
  close(): void;
}

/**
 * For what main.ts says before the application's own logger exists (a generated key, AUTH_MODE=none)
 * or when the application could not be built: the same format and destination, written
 * synchronously so that a line is out before the process exits.
 */
export async function openBootLogger(config: Pick<AppConfig, 'logLevel' | 'logFormat' | 'logFile'>): Promise<BootLogger> {
  const destination = await openLogDestination(config, { sync: true });
  const root = pino(pinoOptions(config), destination);
  return { logger: root.child({ context: 'Bootstrap' }), nest: nestLoggerOver(root), close: () => void destination.end() };
}

const STACK = /^.+\n\s+at .+/;

/** Nest's `(message, ...params, context?)` calls as pino lines; a trailing stack (Nest's error handler passes one) becomes a field. */
function nestLoggerOver(logger: Logger): LoggerService {
  const at =
    (level: Level) =>
    (message: unknown, ...params: unknown[]): void => {
      const strings = params.filter((param): param is string => typeof param === 'string');
      const stack = strings.find((param) => STACK.test(param));
      const context = strings.findLast((param) => param !== stack);
      const text = message instanceof Error ? (message.stack ?? message.message) : String(message);
      logger[level]({ ...(context === undefined ? {} : { context }), ...(stack === undefined ? {} : { stack }) }, text);
    };
  return { log: at('info'), error: at('error'), warn: at('warn'), debug: at('debug'), verbose: at('trace'), fatal: at('fatal') };
}
