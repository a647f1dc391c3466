import { once } from 'node:events';
import { pino } from 'pino';
import { settlesWithin } from '../../engine/concurrency/settles-within.js';
import type { AppConfig } from '../../config/app-config.js';
import { ACCESS_LINE_MESSAGE } from './access-log.middleware.js';
import type { LogDestination } from './log-sink.js';

type LogTarget = Pick<AppConfig, 'logFormat' | 'logFile'>;

/**
 * How long a closing destination may take to write out what it holds: a stdout pipe nobody reads
 * must not hold a shutdown.
 */
const CLOSE_DEADLINE_MS = 2_000;

/**
 * JSON lines go through sonic-boom, asynchronously: a line costs the caller a string append, and
 * flushSync() at shutdown writes what is still buffered. `sync` is for a short-lived boot logger
 * whose lines must be out before the process may exit.
 */
export async function openLogDestination(target: LogTarget, options: { sync?: boolean } = {}): Promise<LogDestination> {
  const sync = options.sync ?? false;
  if (target.logFormat === 'pretty') return openPretty(target.logFile);
  const boom = pino.destination({ dest: target.logFile ?? 1, append: true, mkdir: true, sync });
  let ended = false;
  return {
    write: (line: string) => {
      if (!ended) boom.write(line);
    },
    flushSync: () => {
      if (ended) return;
      try {
        boom.flushSync();
      } catch {
        // Not open yet (a file opens asynchronously): end() still writes the buffer once it is.
      }
    },
    end: async () => {
      if (ended) return;
      ended = true;
      // flushSync() cannot write a line whose asynchronous write is already under way; Nest kills
      // the process with its signal right after the shutdown hooks, so the hook waits for that
      // write (and the rest) to land before it returns.
      const closed = once(boom, 'close').catch(() => undefined);
      boom.end();
      await settlesWithin(closed, CLOSE_DEADLINE_MS);
    },
  };
}

/** For a person at a terminal: one coloured line per entry, its fields below it. Loaded only when asked for. */
async function openPretty(file: string | undefined): Promise<LogDestination> {
  const { default: pretty } = await import('pino-pretty');
  const stream = pretty({
    destination: file ?? 1,
    mkdir: true,
    append: true,
    // Writes straight through: a developer's terminal is not a hot path, and nothing is lost on Ctrl-C.
    sync: true,
    colorize: file === undefined && Boolean(process.stdout.isTTY),
    translateTime: 'SYS:HH:MM:ss.l',
    // The access line's fields go into its one line of text; every other field is shown below its line.
    ignore: 'pid,hostname,context,method,route,path,status,durationMs',
    messageFormat: prettyMessage,
  });
  return {
    write: (line: string) => stream.write(line),
    flushSync: () => undefined,
    end: async () => {
      if (stream.writableEnded) return;
      const finished = once(stream, 'finish').catch(() => undefined);
      stream.end();
      await settlesWithin(finished, CLOSE_DEADLINE_MS);
    },
  };
}

/** `[context] message`; an access line as `GET /v1/fetcher/… 200 12.3 ms`, its request id below it. */
function prettyMessage(line: Record<string, unknown>): string {
  const text = String(line.msg ?? '');
  if (text === ACCESS_LINE_MESSAGE && typeof line.status === 'number') {
    return `${String(line.method ?? '-')} ${String(line.path ?? '-')} ${line.status} ${String(line.durationMs)} ms`;
  }
  return typeof line.context === 'string' ? `[${line.context}] ${text}` : text;
}
