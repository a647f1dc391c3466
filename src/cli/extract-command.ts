import { readFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { Command } from 'commander';
import type { ResolvedDatasource } from '../engine/connectors/shared/engine-connector.js';
import { createEngine, type Engine } from '../engine/engine.js';
import type { ExtractResult } from '../engine/extract-request.js';
import { writableUpload } from '../engine/output/result-targets.js';
import type { DataRequestInput, ExtractionCeilings } from '../engine/request/data-request.js';
import { validateDataRequest } from '../engine/request/data-request.validator.js';
import { EXIT, UsageError, writeAll, type CliIo } from './cli-io.js';
import { reportFailure, runCommand } from './command-runner.js';
import { datasourceUrls } from './datasource-args.js';
import { ExtractProgress } from './extract-progress.js';
import { OutputFile } from './output-file.js';
import { OutputFolder } from './output-folder.js';
import {
  isPerTable,
  outputProblems,
  resolveOutput,
  type OutputCompression,
  type OutputFormat,
  type ResultOutput,
} from '../engine/formats/output-format.js';
import { readInput } from './read-input.js';
import { readState, writeState } from './state-file.js';
import type { IncrementalRequest } from '../engine/request/incremental-request.js';
import { bytes, egressFlags, egressOptions, milliseconds, type EgressFlags } from './command-flags.js';

const NAME = 'fetcher extract';

interface ExtractFlags extends EgressFlags {
  readonly request: string;
  readonly datasource: string[];
  readonly out: string;
  readonly format?: string;
  readonly compression?: string;
  readonly state?: string;
  readonly seal?: boolean;
  readonly masterKeyFile?: string;
  readonly limits?: string;
  readonly quiet?: boolean;
  readonly json?: boolean;
  readonly connectTimeout?: number;
  readonly discoveryTimeout?: number;
  readonly discoveryMaxBytes?: number;
}

const HELP_AFTER = `
The request is the service's data request: {"mappedFields": {…}, "filters": {…}, "limits": {…}}, or a
whole job body (its "dataRequest" member is read; its "output" is not: give --format and --compression).
The output is the JSON document the service stores as plaintext (docs/value-mapping.md), or NDJSON;
--format csv or parquet writes a folder instead: <datasource>/<table>.<ext> per table and manifest.json.
Either is written under a temporary name and renamed into place once complete: a failure or Ctrl-C
leaves no file or folder under the final name. With --seal it is the sealed object the service
stores; \`fetcher result --file <out> --hmac <hmac>\` opens and verifies it with the same master key.

Datasource URLs: postgres://, mysql:// or mariadb://, sqlserver:// or mssql://, oracle://, mongodb:// or
mongodb+srv:// (docs/engine.md lists their options). A password in a URL is visible in the process list
and the shell history: give --datasource <name>=env:<VAR> to read the URL from a variable instead, or set
FETCHER_DATASOURCE_<NAME> (the config name upper-cased, other characters as _), read for every datasource
the request names and no --datasource gives.

On a terminal, progress goes to stderr (--quiet: none); at the end one JSON line on stderr sums it up
(rowCounts, sizeBytes, sha256, hmac when sealed, elapsedMs), or on stdout with --json when the data goes
to a file.

Exit codes: 0 done; 1 the extraction failed (the FET code and message are printed); 2 a usage error: a
flag, the request file, a URL or a limit (named in the message); 130 interrupted (Ctrl-C).`;

export function extractCommand(): Command {
  return egressFlags(
    new Command(NAME)
      .description('Extract a data request from databases into one JSON document (or sealed object), without the service.')
      .requiredOption('--request <file|->', 'the data request, as JSON (- for stdin)')
      .option(
        '--datasource <name=url>',
        'a datasource of the request: <name>=<url> or <name>=env:<VAR> (repeat per datasource)',
        collect,
        [],
      )
      .option('--out <file|folder|->', 'where the document goes (- for stdout); a folder for csv and parquet', '-')
      .option('--format <format>', 'json (default), ndjson, or one part per table: csv, parquet')
      .option('--compression <compression>', 'none (default), gzip or zstd')
      .option('--seal', 'write the sealed object the service stores (AES-256-GCM, HMAC-SHA256) instead of plaintext')
      .option('--master-key-file <file>', 'the master key to seal with (base64, as APP_ENC_KEY); default: APP_ENC_KEY')
      .option('--limits <limits>', 'lower the engine limits: name=value,… or a JSON object (docs/request-limits.md)')
      .option('--connect-timeout <ms>', 'each connect (default 15000)', milliseconds)
      .option('--discovery-timeout <ms>', "each datasource's schema discovery (default 15000)", milliseconds)
      .option('--discovery-max-bytes <n>', "bytes of catalog each datasource's discovery may read (default 4194304)", bytes)
      .option(
        '--state <file>',
        "with dataRequest.incremental: the stream's marks, read before and rewritten only after a run that succeeded",
      )
      .option('--json', 'print the summary on stdout (with --out <file>)')
      .option('--quiet', 'no progress display'),
  ).addHelpText('after', HELP_AFTER);
}

export function runExtract(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(extractCommand(), argv, io, (command) => extract(command.opts<ExtractFlags>(), io));
}

async function extract(flags: ExtractFlags, io: CliIo): Promise<number> {
  const started = performance.now();
  let output: OutputFile | OutputFolder | undefined;
  let progress: ExtractProgress | undefined;
  try {
    const dataRequest = requestOf(await readInput(flags.request, '--request', io));
    const engine = createEngine({
      limits: parseLimits(flags.limits),
      egress: egressOptions(flags),
      connectTimeoutMs: flags.connectTimeout,
      discoveryTimeoutMs: flags.discoveryTimeout,
      discoveryMaxBytes: flags.discoveryMaxBytes,
    });
    validateDataRequest(dataRequest, engine.limits);
    const stream = (dataRequest.incremental as IncrementalRequest | undefined)?.stream;
    if (flags.state !== undefined && stream === undefined) throw new UsageError('--state goes with dataRequest.incremental');
    const marks = flags.state === undefined || stream === undefined ? undefined : await readState(flags.state, stream);
    const datasources = await resolveAll(engine, datasourceUrls(flags.datasource, Object.keys(dataRequest.mappedFields as object), io.env));
    const seal = await sealOf(flags, io.env);
    const format = formatOf(flags);
    if (flags.json && flags.out === '-') throw new UsageError('--json needs --out <file>: stdout carries the document');
    if (isPerTable(format) && flags.out === '-')
      throw new UsageError(`--format ${format.format} writes a folder of parts: give --out <folder>`);
    output = flags.out === '-' ? undefined : isPerTable(format) ? await OutputFolder.open(flags.out) : await OutputFile.open(flags.out);
    progress = showsProgress(flags, io) ? await openProgress(io.stderr as NodeJS.WriteStream) : undefined;
    const onProgress = progress ? progress.record.bind(progress) : undefined;
    const sink = output instanceof OutputFolder ? output : (output?.stream ?? writableUpload(io.stdout as Writable, { end: false }));
    const result = await engine.extract(
      { datasources, dataRequest, output: { seal, ...format }, signal: io.interrupt, onProgress, ...(marks ? { marks } : {}) },
      sink,
    );
    progress?.stop();
    await output?.commit();
    // Only once the output is in place: a failed run, or one whose output could not be kept, leaves the marks where they were.
    if (flags.state !== undefined && result.incremental)
      await writeState(flags.state, result.incremental.stream, marks, result.incremental.marks);
    const summary = `${JSON.stringify(summaryOf(result, performance.now() - started, flags.out))}\n`;
    await writeAll(flags.json ? io.stdout : io.stderr, summary);
    return EXIT.ok;
  } catch (error) {
    progress?.stop();
    await output?.discard();
    return reportFailure(error, NAME, io);
  }
}

/** --format and --compression, refused by name when the engine would refuse them. */
function formatOf(flags: ExtractFlags): ResultOutput {
  const problems = outputProblems({
    ...(flags.format === undefined ? {} : { format: flags.format }),
    ...(flags.compression === undefined ? {} : { compression: flags.compression }),
  });
  if (problems) {
    const [field, problem] = Object.entries(problems)[0];
    throw new UsageError(`--${field.replace('output.', '')} ${problem}`);
  }
  return resolveOutput({
    format: flags.format as OutputFormat | undefined,
    compression: flags.compression as OutputCompression | undefined,
  });
}

/** The data request itself, or the `dataRequest` of a whole job body. */
function requestOf(text: string): DataRequestInput & { readonly mappedFields?: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--request: not JSON (${(error as Error).message.slice(0, 120)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--request: must be a JSON object');
  const body = parsed as Record<string, unknown>;
  return (Object.hasOwn(body, 'dataRequest') ? body.dataRequest : body) as DataRequestInput;
}

/** `name=value,…` or a JSON object; createEngine refuses names it does not know and values above its defaults. */
function parseLimits(text: string | undefined): Partial<ExtractionCeilings> | undefined {
  if (text === undefined) return undefined;
  if (text.trim().startsWith('{')) {
    try {
      return JSON.parse(text) as Partial<ExtractionCeilings>;
    } catch {
      throw new UsageError('--limits: not a JSON object');
    }
  }
  const limits: Record<string, number> = {};
  for (const pair of text.split(',').filter((part) => part.trim() !== '')) {
    const [name, value, ...rest] = pair.split('=').map((part) => part.trim());
    if (!name || value === undefined || rest.length > 0 || !/^\d+$/.test(value))
      throw new UsageError(`--limits: expected name=<integer>, got ${JSON.stringify(pair.slice(0, 60))}`);
    limits[name] = Number(value);
  }
  return limits;
}

async function resolveAll(engine: Engine, urls: Record<string, string>): Promise<Record<string, ResolvedDatasource>> {
  const resolved: Record<string, ResolvedDatasource> = {};
  for (const [name, url] of Object.entries(urls)) resolved[name] = await engine.resolve(name, url);
  return resolved;
}

async function sealOf(flags: ExtractFlags, env: NodeJS.ProcessEnv): Promise<{ masterKey: string } | undefined> {
  if (!flags.seal) {
    if (flags.masterKeyFile !== undefined) throw new UsageError('--master-key-file goes with --seal');
    return undefined;
  }
  if (flags.masterKeyFile === undefined) {
    if (env.APP_ENC_KEY) return { masterKey: env.APP_ENC_KEY };
    throw new UsageError('--seal needs --master-key-file <file> (or APP_ENC_KEY)');
  }
  try {
    return { masterKey: (await readFile(flags.masterKeyFile, 'utf8')).trim() };
  } catch (error) {
    throw new UsageError(`--master-key-file: cannot read ${flags.masterKeyFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

const showsProgress = (flags: ExtractFlags, io: CliIo) => !flags.quiet && (io.stderr as NodeJS.WriteStream).isTTY === true;

async function openProgress(stderr: NodeJS.WriteStream): Promise<ExtractProgress> {
  // Loaded only for a terminal: a pipe or a file never sees an escape sequence.
  const { createLogUpdate } = await import('log-update');
  return new ExtractProgress(createLogUpdate(stderr), Math.max(1, (stderr.rows || 24) - 4));
}

function summaryOf(result: ExtractResult, elapsedMs: number, out: string) {
  return {
    format: result.format,
    compression: result.compression,
    rowCount: result.rowCount,
    rowCounts: result.rowCounts,
    sizeBytes: result.sizeBytes,
    sha256: result.sha256,
    ...(result.hmac === undefined ? {} : { hmac: result.hmac, storedBytes: result.storedBytes }),
    ...(result.parts === undefined
      ? {}
      : {
          parts: result.parts.map(({ path, rowCount, sizeBytes, sha256, hmac }) => ({
            path,
            rowCount,
            sizeBytes,
            sha256,
            ...(hmac ? { hmac } : {}),
          })),
        }),
    ...(result.incremental ? { incremental: { stream: result.incremental.stream, tables: result.incremental.tables } } : {}),
    elapsedMs: Math.round(elapsedMs),
    out: out === '-' ? 'stdout' : out,
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
