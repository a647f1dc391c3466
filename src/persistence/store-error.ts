import { TypeORMError } from 'typeorm';

/**
 * An error of the job store itself (a statement it refused, a connection it lost or never gave),
 * as opposed to one of our own code's: what a caller may leave to a retry rather than blame on
 * the work it was doing.
 */
export function isStoreError(error: unknown): boolean {
  if (error instanceof TypeORMError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // Socket errors of the driver: ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE…
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  // What pg says of a connection that ended under it, or of a pool that could not give one in time.
  return /^Connection terminated|^timeout exceeded when trying to connect/.test(error.message);
}
