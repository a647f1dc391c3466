import type { Level } from 'pino';

/** LOG_LEVEL keeps Nest's names (what operators already set); pino has its own for the same ranks. */
const PINO_LEVEL_OF_NEST: Readonly<Record<string, Level>> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/** The pino level of a Nest level name; the config validator has already refused any other name. */
export function pinoLevelOf(nestLevel: string): Level {
  return PINO_LEVEL_OF_NEST[nestLevel] ?? 'info';
}
