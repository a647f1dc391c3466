/**
 * The password was about to travel without TLS and ALLOW_PLAINTEXT_PASSWORD is false, so it was
 * not sent. The message is safe to show and tells the operator what to change.
 */
export class PlaintextPasswordRefusedError extends Error {
  override readonly name = 'PlaintextPasswordRefusedError';
  readonly code = 'FETCHER_PLAINTEXT_PASSWORD';
}

const WHAT_TO_CHANGE = 'or set ALLOW_PLAINTEXT_PASSWORD=true to accept that risk';

/** `why` says what would have happened, `tlsModes` which SSL modes avoid it. */
export function plaintextPasswordRefused(why: string, tlsModes: string): PlaintextPasswordRefusedError {
  return new PlaintextPasswordRefusedError(`${why}; it was not sent. Use an SSL mode with TLS (${tlsModes}), ${WHAT_TO_CHANGE}`);
}

/** The refusal, wherever a driver wrapped it (mssql's `originalError`, `cause`). */
export function findPlaintextRefusal(error: unknown): PlaintextPasswordRefusedError | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 6; depth++) {
    if (e instanceof PlaintextPasswordRefusedError) return e;
    const record = e as { originalError?: unknown; cause?: unknown };
    e = record.originalError ?? record.cause;
  }
  return undefined;
}

/** What a connect-error classifier says for reason `plaintext_password_refused`. */
export function plaintextRefusalMessage(error: unknown): string {
  return findPlaintextRefusal(error)?.message ?? 'the password would have been sent in clear text';
}
