#!/usr/bin/env node
import { existsSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { EXIT, type CliIo } from './cli-io.js';

/** Each subcommand's module, loaded only when it runs: `fetcher extract` never loads the service's configuration. */
const SUBCOMMANDS: Readonly<
  Record<string, { summary: string; run: () => Promise<(argv: readonly string[], io: CliIo) => Promise<number>> }>
> = {
  extract: {
    summary: 'extract a data request from databases into one JSON document, without the service',
    run: async () => (await import('./extract-command.js')).runExtract,
  },
  test: { summary: 'connect to a datasource and disconnect', run: async () => (await import('./probe-commands.js')).runTest },
  schema: { summary: "list a datasource's tables and columns as JSON", run: async () => (await import('./probe-commands.js')).runSchema },
  result: {
    summary: "fetch, decrypt and verify a job's result, or a downloaded object (npm run result)",
    run: async () => (await import('./show-result.js')).runShowResult,
  },
  'rotate-credentials': {
    summary: 're-encrypt stored connection secrets under the current key (npm run rotate-credentials)',
    run: async () => (await import('./rotate-credentials.js')).runRotateCredentials,
  },
};

function overview(): string {
  const program = new Command('fetcher').description("Fetcher's extraction engine and tools, from a shell.").usage('<command> [options]');
  for (const [name, { summary }] of Object.entries(SUBCOMMANDS)) program.command(name).description(summary);
  return `${program.helpInformation()}\nEach command has --help. Docs: docs/engine.md (extract, test, schema), the README (result, rotate-credentials).\n`;
}

/** The `fetcher` command: dispatches to a subcommand; returns the exit code. */
export async function runFetcher(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const subcommand = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (!subcommand) {
    io.stderr.write(`fetcher: unknown command ${JSON.stringify(name.slice(0, 40))} (see fetcher --help)\n`);
    return EXIT.usage;
  }
  return (await subcommand.run())(rest, io);
}

/** True when this module is the script node was started with (through the package's bin link too). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  if (existsSync('.env')) process.loadEnvFile('.env');
  // A reader that went away (`fetcher schema … | head`) fails the write that meets it; no stack on the way out.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const interrupt = new AbortController();
  // The first Ctrl-C stops the work (sessions closed, nothing written); a second one leaves at once.
  process.on('SIGINT', () => (interrupt.signal.aborted ? process.exit(EXIT.interrupted) : interrupt.abort(new Error('interrupted'))));
  process.on('SIGTERM', () => interrupt.abort(new Error('terminated')));
  process.exitCode = await runFetcher(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    interrupt: interrupt.signal,
  });
}
