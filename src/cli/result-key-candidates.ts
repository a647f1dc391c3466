import { deriveResultKeys, type ResultKeys } from '../engine/crypto/key-derivation.js';
import { decodeDerivedKey } from '../engine/crypto/key-text.js';
import type { AppConfig } from '../config/app-config.js';
import { openResultWithKeys, type OpenedResult } from '../engine/result/result-opener.js';
import { ResultCodecError } from '../engine/errors/engine-errors.js';
import { CliError } from './cli-io.js';

/** One way to open a result: the keys, and how to name them in messages. */
export interface KeyCandidate {
  readonly label: string;
  readonly keys: ResultKeys;
}

/** The key options of `npm run result`, as given on the command line. */
export interface KeyArgs {
  readonly hmacKey?: string;
  readonly encryptionKey?: string;
  readonly keyVersion?: string;
}

/** The derived keys a consumer gave (flags first, then FETCHER_RESULT_* variables), if any. */
export function givenKeys(args: KeyArgs, env: NodeJS.ProcessEnv): KeyCandidate | undefined {
  const hmac = args.hmacKey ?? (env.FETCHER_RESULT_HMAC_KEY || undefined);
  const encryption = args.encryptionKey ?? (env.FETCHER_RESULT_ENCRYPTION_KEY || undefined);
  if (hmac === undefined && encryption === undefined) return undefined;
  if (hmac === undefined || encryption === undefined) {
    throw new CliError(
      'give both derived keys: --hmac-key and --encryption-key (or FETCHER_RESULT_HMAC_KEY and FETCHER_RESULT_ENCRYPTION_KEY)',
    );
  }
  if (args.keyVersion !== undefined)
    throw new CliError('--key-version picks a master key of the keyring; it does not go with derived keys');
  const decode = (text: string, source: string) => {
    try {
      return decodeDerivedKey(text, source);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
  };
  return {
    label: 'the given derived keys',
    keys: {
      hmacKey: decode(hmac, args.hmacKey !== undefined ? '--hmac-key' : 'FETCHER_RESULT_HMAC_KEY'),
      encryptionKey: decode(encryption, args.encryptionKey !== undefined ? '--encryption-key' : 'FETCHER_RESULT_ENCRYPTION_KEY'),
    },
  };
}

/**
 * The keyring entries to try: only `version` when it is known, else the current key first and
 * then the older ones (a result recorded before versions were, or a downloaded file).
 */
export function keyringCandidates(config: AppConfig, version: string | undefined, whose = 'key version'): KeyCandidate[] {
  const { keyring, keyVersion } = config.encryption;
  const entry = (v: string): KeyCandidate => ({ label: `key version ${v}`, keys: deriveResultKeys(keyring.get(v) as Buffer) });
  if (version !== undefined) {
    if (!keyring.has(version)) {
      const variable = version === keyVersion ? 'APP_ENC_KEY' : `APP_ENC_KEY_${version}`;
      throw new CliError(
        `${whose} ${version}, which is not configured: set ${variable} to that master key, or give the derived keys of version ${version} (--hmac-key, --encryption-key)`,
      );
    }
    return [entry(version)];
  }
  return [keyVersion, ...[...keyring.keys()].filter((v) => v !== keyVersion)].map(entry);
}

/** GCM authenticates the key, so trying each candidate cannot open a result with the wrong one. */
export function openWithAny(stored: Buffer, candidates: readonly KeyCandidate[], hint: string): { opened: OpenedResult; used: string } {
  let last: unknown;
  for (const candidate of candidates) {
    try {
      return { opened: openResultWithKeys(stored, candidate.keys), used: candidate.label };
    } catch (error) {
      if (!(error instanceof ResultCodecError)) throw error;
      last = error;
    }
  }
  const tried = candidates.map((candidate) => candidate.label).join(', ');
  throw new CliError(`${(last as Error).message} (tried ${tried})${hint}`);
}
