/**
 * Bounded waits shared by the connectors: a driver call against a server that stopped answering
 * must never hold a job, a connection test or a shutdown.
 */

export { settlesWithin } from '../../../common/concurrency/settles-within.js';

/**
 * `work`, unless the deadline (`timeoutMs` > 0) or the signal comes first: then `stop` runs at once
 * (cut the socket) and this rejects with `timeoutError()` or the signal's reason, without waiting
 * for the driver to notice; whatever `work` does afterwards is ignored.
 */
export async function raceDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  timeoutError: () => Error,
  stop: () => void,
): Promise<T> {
  signal?.throwIfAborted();
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        stop();
        reject(timeoutError());
      }, timeoutMs);
    }
    onAbort = () => {
      stop();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  interrupted.catch(() => undefined);
  try {
    return await Promise.race([work, interrupted]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}
