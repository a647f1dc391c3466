import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AppConfig } from '../config/app-config.js';
import { createObjectStore } from '../storage/object-store.factory.js';
import { hmacMatches, type OpenedResult } from '../storage/result-codec/result-opener.js';
import { CliError, isEntryPoint, loadConfigWithExistingKey, loadConfigWithoutKeys, writeAll, type CliIo } from './cli-config.js';
import { givenKeys, keyringCandidates, openWithAny, type KeyCandidate } from './result-key-candidates.js';

const USAGE = `Usage:
  npm run result -- <jobId>                      fetch a completed job's result, decrypt it, verify its HMAC
  npm run result -- --file <path> --hmac <hex>   decrypt and verify a downloaded result object offline
  npm run result -- --derive-keys [--key-version <v>]
                                                 print the two derived result keys of a key version (default:
                                                 the current one) to hand to a consumer instead of the master key

Keys: by default the master keys of the service's environment (APP_ENC_KEY, APP_ENC_KEY_VERSION,
APP_ENC_KEY_<version>): a job is opened with the version it was sealed with (its resultKeyVersion);
--file tries every configured version, or only --key-version <v>. A consumer without the master key
gives the derived keys instead: --hmac-key <key> --encryption-key <key> (64 hex digits or base64),
or FETCHER_RESULT_HMAC_KEY / FETCHER_RESULT_ENCRYPTION_KEY; no master key is read or generated then.

The plaintext JSON goes to stdout; the verdict goes to stderr. Exit code 1 on a mismatch or any error.
Environment: the service's own (.env is read when present), plus FETCHER_URL (default http://127.0.0.1:$PORT)
and FETCHER_TOKEN (sent as a bearer token when the API requires one).`;

export type ShowResultIo = CliIo;

interface JobView {
  status?: string;
  resultPath?: string;
  resultHmac?: string;
  resultKeyVersion?: string;
  result?: { sizeBytes?: number; rowCount?: number; sha256?: string };
  error?: { code?: string; message?: string };
}

/** The whole command, free of process globals so tests can drive it. Returns the exit code. */
export async function runShowResult(argv: readonly string[], io: ShowResultIo): Promise<number> {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  try {
    const args = parseArgs(argv);
    if (args.help) {
      say(USAGE);
      return 0;
    }
    if (args.deriveKeys) return await printDerivedKeys(loadConfigWithExistingKey(io.env), args.keyVersion, io, say);

    const given = givenKeys(args, io.env);
    let opened: OpenedResult;
    let used: string;
    let expected: { hmac?: string; sizeBytes?: number; sha256?: string };
    if (args.file !== undefined) {
      const candidates = given ? [given] : keyringCandidates(loadConfigWithExistingKey(io.env), args.keyVersion);
      ({ opened, used } = openWithAny(await readLocalFile(args.file), candidates, ''));
      expected = { hmac: args.hmac };
    } else {
      const config = given ? loadConfigWithoutKeys(io.env) : loadConfigWithExistingKey(io.env);
      const baseUrl = (io.env.FETCHER_URL ?? `http://127.0.0.1:${config.http.port}`).replace(/\/+$/, '');
      const job = await fetchJob(baseUrl, args.jobId as string, io.env.FETCHER_TOKEN);
      const candidates = given ? [given] : keyringCandidates(config, job.resultKeyVersion, `job ${args.jobId} was sealed with key version`);
      const sealedWith = job.resultKeyVersion === undefined ? '' : ` (the job says it was sealed with key version ${job.resultKeyVersion})`;
      const store = await createObjectStore(config.storage);
      try {
        ({ opened, used } = openWithAny(await store.read(job.resultPath as string), candidates, sealedWith));
      } finally {
        await store.close();
      }
      expected = { hmac: job.resultHmac, sizeBytes: job.result?.sizeBytes, sha256: job.result?.sha256 };
    }

    await writeAll(io.stdout, opened.plaintext);
    // Exact bytes when piped (so the file hashes to the HMAC); a newline only for a terminal.
    if ((io.stdout as { isTTY?: boolean }).isTTY) await writeAll(io.stdout, Buffer.from('\n'));
    say(`opened with ${used}`);
    return report(opened, expected, say);
  } catch (error) {
    say(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

async function printDerivedKeys(config: AppConfig, version: string | undefined, io: ShowResultIo, say: (line: string) => void): Promise<number> {
  const [candidate] = keyringCandidates(config, version ?? config.encryption.keyVersion);
  const keys = (candidate as KeyCandidate).keys;
  // Only the keys go to stdout, in a form that can be appended to the consumer's environment.
  await writeAll(io.stdout, `FETCHER_RESULT_HMAC_KEY=${keys.hmacKey.toString('base64')}\nFETCHER_RESULT_ENCRYPTION_KEY=${keys.encryptionKey.toString('base64')}\n`);
  say(`derived result keys of ${(candidate as KeyCandidate).label}: they open results sealed with that version only; hand them over as secrets`);
  return 0;
}

function report(opened: OpenedResult, expected: { hmac?: string; sizeBytes?: number; sha256?: string }, say: (line: string) => void): number {
  let ok = true;
  if (expected.hmac === undefined) {
    say(`HMAC: ${opened.hmac} (not verified: no --hmac given)`);
  } else if (hmacMatches(opened.hmac, expected.hmac)) {
    say(`HMAC: verified (${opened.hmac})`);
  } else {
    say(`HMAC: MISMATCH (expected ${expected.hmac}, computed ${opened.hmac})`);
    ok = false;
  }
  if (expected.sizeBytes !== undefined && expected.sizeBytes !== opened.plaintext.length) {
    say(`size: MISMATCH (job says ${expected.sizeBytes} bytes, object has ${opened.plaintext.length})`);
    ok = false;
  }
  if (expected.sha256 !== undefined && expected.sha256.toLowerCase() !== opened.sha256) {
    say(`SHA-256: MISMATCH (expected ${expected.sha256}, computed ${opened.sha256})`);
    ok = false;
  }
  return ok ? 0 : 1;
}

interface Args {
  readonly jobId?: string;
  readonly file?: string;
  readonly hmac?: string;
  readonly hmacKey?: string;
  readonly encryptionKey?: string;
  readonly keyVersion?: string;
  readonly deriveKeys: boolean;
  readonly help: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  let jobId: string | undefined;
  let file: string | undefined;
  let hmac: string | undefined;
  let hmacKey: string | undefined;
  let encryptionKey: string | undefined;
  let keyVersion: string | undefined;
  let deriveKeys = false;
  let help = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const value = (): string => {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new CliError(`${arg} needs a value\n${USAGE}`);
      i += 1;
      return next;
    };
    if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--file') file = value();
    else if (arg === '--hmac') hmac = value();
    else if (arg === '--hmac-key') hmacKey = value();
    else if (arg === '--encryption-key') encryptionKey = value();
    else if (arg === '--key-version') keyVersion = value();
    else if (arg === '--derive-keys') deriveKeys = true;
    else if (arg.startsWith('-')) throw new CliError(`unknown option ${arg}\n${USAGE}`);
    else if (jobId === undefined) jobId = arg;
    else throw new CliError(`unexpected argument ${arg}\n${USAGE}`);
  }
  if (help) return { help, deriveKeys };
  if (deriveKeys) {
    if (jobId !== undefined || file !== undefined || hmac !== undefined || hmacKey !== undefined || encryptionKey !== undefined) {
      throw new CliError('--derive-keys takes only --key-version');
    }
    return { keyVersion, deriveKeys, help };
  }
  if (file !== undefined && jobId !== undefined) throw new CliError(`give either a job id or --file, not both\n${USAGE}`);
  if (file === undefined && jobId === undefined) throw new CliError(USAGE);
  if (hmac !== undefined && file === undefined) throw new CliError(`--hmac goes with --file; a job's own HMAC is checked automatically`);
  if (keyVersion !== undefined && jobId !== undefined) throw new CliError(`--key-version goes with --file or --derive-keys; a job says which version sealed it`);
  if (jobId !== undefined && !/^[A-Za-z0-9_-]{1,128}$/.test(jobId)) throw new CliError(`not a job id: ${JSON.stringify(jobId)}`);
  return { jobId, file, hmac, hmacKey, encryptionKey, keyVersion, deriveKeys, help };
}

async function fetchJob(baseUrl: string, jobId: string, token: string | undefined): Promise<JobView> {
  const url = `${baseUrl}/v1/fetcher/${encodeURIComponent(jobId)}`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`cannot reach Fetcher at ${baseUrl} (${cause?.code ?? cause?.message ?? (error as Error).message}); set FETCHER_URL`);
  }
  const body = (await response.json().catch(() => undefined)) as (JobView & { message?: string; code?: string }) | undefined;
  if (response.status === 404) throw new CliError(`job ${jobId} not found at ${baseUrl}`);
  if (!response.ok || body === undefined) {
    throw new CliError(`GET ${url} answered ${response.status}${body?.code ? ` ${body.code}` : ''}${body?.message ? `: ${body.message}` : ''}`);
  }
  if (body.status !== 'completed') {
    const why = body.error?.message ? ` (${body.error.code ?? 'error'}: ${body.error.message})` : '';
    throw new CliError(`job ${jobId} is ${body.status ?? 'in an unknown state'}${why}; only a completed job has a result`);
  }
  if (!body.resultPath || !body.resultHmac) throw new CliError(`job ${jobId} is completed but has no resultPath/resultHmac`);
  return body;
}

async function readLocalFile(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

if (isEntryPoint(import.meta.url)) {
  if (existsSync('.env')) process.loadEnvFile('.env');
  process.exitCode = await runShowResult(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
}
