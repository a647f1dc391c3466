import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AppConfig } from '../config/app-config.js';
import { createObjectStore } from '../storage/object-store.factory.js';
import { hmacMatches, type OpenedResult } from '../engine/result/result-opener.js';
import { Command } from 'commander';
import { loadConfigWithExistingKey, loadConfigWithoutKeys } from './cli-config.js';
import { CliError, EXIT, writeAll, type CliIo } from './cli-io.js';
import { runCommand } from './command-runner.js';
import { ResultApiClient, type JobView } from './result-api-client.js';
import { saveResult, type SavedJob } from './result-folder.js';
import { givenKeys, keyringCandidates, openWithAny, type KeyCandidate } from './result-key-candidates.js';

const HELP_AFTER = `
Keys: by default the master keys of the service's environment (APP_ENC_KEY, APP_ENC_KEY_VERSION,
APP_ENC_KEY_<version>): a job is opened with the version it was sealed with (its resultKeyVersion);
--file tries every configured version, or only --key-version <v>. A consumer without the master key
gives the derived keys instead: --hmac-key <key> --encryption-key <key> (64 hex digits or base64),
or FETCHER_RESULT_HMAC_KEY / FETCHER_RESULT_ENCRYPTION_KEY; no master key is read or generated then.
--derive-keys prints the two derived result keys of a key version (default: the current one), to hand
to a consumer instead of the master key.

A job's result is downloaded through the API. With a key of its version at hand, the sealed object is
downloaded and opened here (GCM, HMAC, SHA-256 all checked locally); without one, the plaintext the server
verified is downloaded and checked against the job's SHA-256 and the ETag (the HMAC needs a key). A server
without that route (404): the store is read directly, with the service's storage settings and a key.

A per-table result (csv, parquet) is one part per table and a manifest: without --out the manifest goes
to stdout; --out <dir> downloads and verifies every part into <dir>/<datasource>/<file> (a one-object
result: <dir>/<jobId>.<ext>), keeping nothing when any part fails.

The plaintext goes to stdout; the verdict goes to stderr. Exit code 1 on a mismatch or any error
(a usage error included). Environment: the service's own (.env is read when present), plus FETCHER_URL
(default http://127.0.0.1:$PORT) and FETCHER_TOKEN (sent as a bearer token when the API requires one).`;

/** `fetcher result` (also `npm run result --`). */
export function resultCommand(): Command {
  return new Command('fetcher result')
    .description("Fetch a completed job's result, decrypt it and verify it; or open a downloaded result object offline.")
    .argument('[jobId]', 'the job whose result to fetch (through GET /v1/fetcher/<jobId>/result: no store access needed)')
    .option('--file <path>', 'a downloaded result object to decrypt and verify offline')
    .option('--hmac <hex>', 'with --file: the HMAC the object must have (the job’s resultHmac)')
    .option('--hmac-key <key>', 'the derived HMAC key, instead of the master keys')
    .option('--encryption-key <key>', 'the derived encryption key, instead of the master keys')
    .option('--key-version <version>', 'with --file or --derive-keys: only this master-key version')
    .option('--out <dir>', "with a job id: write the result into this folder, a per-table result's every part verified")
    .option('--derive-keys', 'print the two derived result keys of a key version, to hand to a consumer')
    .showHelpAfterError()
    .addHelpText('after', HELP_AFTER);
}

export type ShowResultIo = CliIo;

/** The whole command, free of process globals so tests can drive it. Returns the exit code. */
export function runShowResult(argv: readonly string[], io: ShowResultIo): Promise<number> {
  const command = resultCommand();
  return runCommand(
    command,
    argv,
    io,
    async (parsed) => {
      try {
        return await showResult(
          checkArgs(parsed.processedArgs[0] as string | undefined, parsed.opts<Flags>(), parsed.helpInformation()),
          io,
        );
      } catch (error) {
        io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
        return EXIT.failed;
      }
    },
    EXIT.failed,
  );
}

async function showResult(args: Args, io: ShowResultIo): Promise<number> {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  if (args.deriveKeys) return await printDerivedKeys(loadConfigWithExistingKey(io.env), args.keyVersion, io, say);

  const given = givenKeys(args, io.env);
  let result: CheckedResult;
  let saved: SavedJob | undefined;
  if (args.file !== undefined) {
    const candidates = given ? [given] : keyringCandidates(loadConfigWithExistingKey(io.env), args.keyVersion);
    const { opened, used } = openWithAny(await readLocalFile(args.file), candidates, '');
    result = { opened, used: `opened with ${used}`, expected: { hmac: args.hmac } };
  } else {
    ({ result, saved } = await showJob(args.jobId as string, given, io.env));
  }

  if (args.out !== undefined && saved !== undefined) {
    say(result.used);
    const verdict = report(result, say);
    return verdict === 0 ? await saveResult(args.out, saved, say) : verdict;
  }
  if (saved?.job.result?.parts?.length) say(`a per-table result: its manifest follows; --out <dir> downloads its parts`);
  await writeAll(io.stdout, result.opened.plaintext);
  // Exact bytes when piped (so the file hashes to the HMAC); a newline only for a terminal.
  if ((io.stdout as { isTTY?: boolean }).isTTY) await writeAll(io.stdout, Buffer.from('\n'));
  say(result.used);
  return report(result, say);
}

/** A result as far as this command could check it; `opened.hmac` is absent when no key was at hand. */
interface CheckedResult {
  readonly opened: Omit<OpenedResult, 'hmac'> & { readonly hmac?: string };
  /** How it was opened, for the verdict. */
  readonly used: string;
  readonly expected: { readonly hmac?: string; readonly sizeBytes?: number; readonly sha256?: string; readonly etag?: string };
  /** Why the HMAC could not be computed, when it could not. */
  readonly hmacUnchecked?: string;
}

/**
 * A job's result, through the API whenever the server has GET …/result (no store access needed):
 * with a key of the job's version at hand, the sealed object, opened and checked here end to end;
 * without one, the plaintext the server verified, checked against the job's SHA-256 and the ETag.
 * An older server without the route: the store, read directly as before the route existed.
 */
async function showJob(
  jobId: string,
  given: KeyCandidate | undefined,
  env: NodeJS.ProcessEnv,
): Promise<{ result: CheckedResult; saved: SavedJob }> {
  const config = loadConfigWithoutKeys(env);
  const api = new ResultApiClient((env.FETCHER_URL ?? `http://127.0.0.1:${config.http.port}`).replace(/\/+$/, ''), env.FETCHER_TOKEN);
  const job = await api.completedJob(jobId);
  const keys = given ? { candidates: [given] } : jobKeys(env, job, jobId);
  const sealedWith = job.resultKeyVersion === undefined ? '' : ` (the job says it was sealed with key version ${job.resultKeyVersion})`;
  const expected = { hmac: job.resultHmac, sizeBytes: job.result?.sizeBytes, sha256: job.result?.sha256 };

  if ('candidates' in keys) {
    const download = await api.download(jobId, true);
    const stored = download?.body ?? (await readFromStore(config, job.resultPath as string));
    const { opened, used } = openWithAny(stored, keys.candidates, sealedWith);
    const via = download ? `downloaded from ${api.baseUrl}` : `read from the store (${api.baseUrl} has no result route)`;
    return {
      result: { opened, used: `${via}, opened with ${used}`, expected },
      saved: { jobId, job, api, keys: keys.candidates, plaintext: opened.plaintext },
    };
  }
  const hint = ` (a key of the job's version here would let this command open the sealed object itself: ${keys.missing.message})`;
  const download = await api.download(jobId, false, hint);
  // The store needs the keys this command does not have: say so, as before the route existed.
  if (!download) throw keys.missing;
  const plaintext = download.body;
  const result = {
    opened: { plaintext, sha256: createHash('sha256').update(plaintext).digest('hex') },
    used: `downloaded from ${api.baseUrl}, verified by the server`,
    expected: { ...expected, etag: download.etag ?? '' },
    hmacUnchecked: keys.missing.message,
  };
  return { result, saved: { jobId, job, api, plaintext } };
}

/** The keyring entry of the job's version, or why there is none (then only the server can open it). */
function jobKeys(env: NodeJS.ProcessEnv, job: JobView, jobId: string): { candidates: KeyCandidate[] } | { missing: CliError } {
  try {
    return {
      candidates: keyringCandidates(loadConfigWithExistingKey(env), job.resultKeyVersion, `job ${jobId} was sealed with key version`),
    };
  } catch (error) {
    // A missing key or version; a malformed one (ConfigError) is still an error of its own.
    if (error instanceof CliError) return { missing: error };
    throw error;
  }
}

async function readFromStore(config: AppConfig, path: string): Promise<Buffer> {
  const store = await createObjectStore(config.storage);
  try {
    return await store.read(path);
  } finally {
    await store.close();
  }
}

async function printDerivedKeys(
  config: AppConfig,
  version: string | undefined,
  io: ShowResultIo,
  say: (line: string) => void,
): Promise<number> {
  const [candidate] = keyringCandidates(config, version ?? config.encryption.keyVersion);
  const keys = (candidate as KeyCandidate).keys;
  // Only the keys go to stdout, in a form that can be appended to the consumer's environment.
  await writeAll(
    io.stdout,
    `FETCHER_RESULT_HMAC_KEY=${keys.hmacKey.toString('base64')}\nFETCHER_RESULT_ENCRYPTION_KEY=${keys.encryptionKey.toString('base64')}\n`,
  );
  say(
    `derived result keys of ${(candidate as KeyCandidate).label}: they open results sealed with that version only; hand them over as secrets`,
  );
  return 0;
}

function report(result: CheckedResult, say: (line: string) => void): number {
  const { opened, expected } = result;
  let ok = true;
  if (opened.hmac === undefined) {
    say(`HMAC: not verified here (${result.hmacUnchecked ?? 'no key'})`);
  } else if (expected.hmac === undefined) {
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
  } else if (expected.etag !== undefined && expected.etag.toLowerCase() !== opened.sha256) {
    say(`SHA-256: MISMATCH (ETag ${JSON.stringify(expected.etag)}, computed ${opened.sha256})`);
    ok = false;
  } else if (expected.sha256 !== undefined) {
    say(`SHA-256: verified (${opened.sha256}${expected.etag !== undefined ? ', the job’s and the ETag' : ''})`);
  }
  return ok ? 0 : 1;
}

interface Flags {
  readonly file?: string;
  readonly hmac?: string;
  readonly hmacKey?: string;
  readonly encryptionKey?: string;
  readonly keyVersion?: string;
  readonly deriveKeys?: boolean;
  readonly out?: string;
}

interface Args extends Flags {
  readonly jobId?: string;
}

/** What commander cannot say about these flags: which go together. */
function checkArgs(jobId: string | undefined, flags: Flags, usage: string): Args {
  const { file, hmac, hmacKey, encryptionKey, keyVersion, deriveKeys, out } = flags;
  if (deriveKeys) {
    if (jobId !== undefined || file !== undefined || hmac !== undefined || hmacKey !== undefined || encryptionKey !== undefined || out) {
      throw new CliError('--derive-keys takes only --key-version');
    }
    return { keyVersion, deriveKeys };
  }
  if (file !== undefined && jobId !== undefined) throw new CliError(`give either a job id or --file, not both\n${usage}`);
  if (file === undefined && jobId === undefined) throw new CliError(usage);
  if (hmac !== undefined && file === undefined) throw new CliError(`--hmac goes with --file; a job's own HMAC is checked automatically`);
  if (keyVersion !== undefined && jobId !== undefined)
    throw new CliError(`--key-version goes with --file or --derive-keys; a job says which version sealed it`);
  if (out !== undefined && jobId === undefined) throw new CliError('--out goes with a job id');
  if (jobId !== undefined && !/^[A-Za-z0-9_-]{1,128}$/.test(jobId)) throw new CliError(`not a job id: ${JSON.stringify(jobId)}`);
  return { jobId, file, hmac, hmacKey, encryptionKey, keyVersion, out };
}

async function readLocalFile(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
