import { Command } from 'commander';
import { createEngine } from '../engine/engine.js';
import { EXIT, writeAll, type CliIo } from './cli-io.js';
import { reportFailure, runCommand } from './command-runner.js';
import { urlFrom } from './datasource-args.js';
import { bytes, egressFlags, egressOptions, milliseconds, type EgressFlags } from './command-flags.js';

interface ProbeFlags extends EgressFlags {
  readonly timeout?: number;
  readonly schema?: string[];
  readonly maxBytes?: number;
}

const URL_HELP = `
<url> is a datasource URL (docs/engine.md), or env:<VAR> to read it from an environment variable so
that no password stands in the process list. Exit codes: 0 done; 1 the datasource could not be reached
or answered an error (the FET code, message and reason are printed); 2 a usage error.`;

export function testCommand(): Command {
  return egressFlags(
    new Command('fetcher test')
      .description('Connect to a datasource and disconnect; prints {"ok":true,"latencyMs":…} on stdout.')
      .argument('<url>', 'the datasource URL, or env:<VAR>')
      .option('--timeout <ms>', 'the whole test, connect included (default 10000)', milliseconds),
  ).addHelpText('after', URL_HELP);
}

export function schemaCommand(): Command {
  return egressFlags(
    new Command('fetcher schema')
      .description('Discover the tables and columns a datasource login can read; prints them as JSON on stdout.')
      .argument('<url>', 'the datasource URL, or env:<VAR>')
      .option(
        '--schema <name>',
        'only this namespace (repeat for more); default: every readable one',
        (value: string, previous: string[]) => [...previous, value],
        [],
      )
      .option('--timeout <ms>', 'the whole discovery, connect included (default 15000)', milliseconds)
      .option('--max-bytes <n>', 'bytes of catalog the discovery may read; past them it fails with FET-1044 (default 4194304)', bytes),
  ).addHelpText('after', URL_HELP);
}

export function runTest(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(testCommand(), argv, io, async (command) => {
    const flags = command.opts<ProbeFlags>();
    try {
      const url = urlFrom(command.processedArgs[0] as string, io.env, '<url>');
      const engine = createEngine({ egress: egressOptions(flags), ...(flags.timeout ? { testTimeoutMs: flags.timeout } : {}) });
      const { latencyMs } = await engine.test(url, { signal: io.interrupt });
      await writeAll(io.stdout, `${JSON.stringify({ ok: true, latencyMs })}\n`);
      return EXIT.ok;
    } catch (error) {
      return reportFailure(error, 'fetcher test', io);
    }
  });
}

export function runSchema(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(schemaCommand(), argv, io, async (command) => {
    const flags = command.opts<ProbeFlags>();
    try {
      const url = urlFrom(command.processedArgs[0] as string, io.env, '<url>');
      const timeouts = flags.timeout ? { discoveryTimeoutMs: flags.timeout, testTimeoutMs: Math.min(flags.timeout, 10_000) } : {};
      const engine = createEngine({ egress: egressOptions(flags), ...timeouts, discoveryMaxBytes: flags.maxBytes });
      const schema = await engine.discover(url, flags.schema, { signal: io.interrupt });
      await writeAll(io.stdout, `${JSON.stringify(schema, null, 2)}\n`);
      return EXIT.ok;
    } catch (error) {
      return reportFailure(error, 'fetcher schema', io);
    }
  });
}
