import { CommanderError, type Command } from 'commander';
import { FetcherError } from '../engine/errors/fetcher-error.js';
import { DataRequestError } from '../engine/request/data-request.error.js';
import { EngineOptionsError, InvalidDatasourceError } from '../engine/errors/engine-errors.js';
import { EXIT, UsageError, type CliIo } from './cli-io.js';

/**
 * Parses `argv` with `command` (its flags, help and errors from commander), then runs `action`
 * with the parsed command, which returns the exit code. A parse error prints one line naming the
 * flag and exits `usageExit`; --help exits 0.
 */
export async function runCommand(
  command: Command,
  argv: readonly string[],
  io: CliIo,
  action: (parsed: Command) => Promise<number>,
  usageExit: number = EXIT.usage,
): Promise<number> {
  let code: number = EXIT.ok;
  command
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`${command.name()}: ${text.replace(/^error: /, '').trim()} (see ${command.name()} --help)\n`),
    })
    .action(async () => {
      code = await action(command);
    });
  try {
    await command.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? EXIT.ok : usageExit;
  }
  return code;
}

/**
 * What a failure says on stderr (one line: the FET code and its message, never a stack or a
 * password) and the exit code: 2 for what the command line or the request file got wrong, before
 * anything was connected to; 1 for a failure of the work itself; 130 once Ctrl-C stopped it.
 */
export function reportFailure(error: unknown, name: string, io: CliIo): number {
  const line = (text: string) => io.stderr.write(`${name}: ${text.replace(/\s*\n\s*/g, ' ')}\n`);
  // Ctrl-C: whatever the work failed with on its way out, it was stopped, not broken.
  if (io.interrupt?.aborted) {
    line('interrupted; every session closed, nothing written');
    return EXIT.interrupted;
  }
  if (isUsage(error)) {
    line(error instanceof FetcherError ? `${error.code} ${error.message}` : (error as Error).message);
    return EXIT.usage;
  }
  if (error instanceof FetcherError) {
    const reason = typeof error.extra?.reason === 'string' ? ` (reason: ${error.extra.reason})` : '';
    line(`${error.code} ${error.message}${reason}`);
  } else {
    line(`FET-0002 internal error (${error instanceof Error ? error.name : 'non-error thrown'}); nothing was written`);
  }
  return EXIT.failed;
}

const isUsage = (error: unknown): boolean =>
  error instanceof UsageError ||
  error instanceof DataRequestError ||
  error instanceof InvalidDatasourceError ||
  error instanceof EngineOptionsError;
