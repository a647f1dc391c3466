/**
 * A bounded wait: a driver call against a server that stopped answering, or a job handler that
 * ignores its abort, must never hold a job, a connection test or a shutdown. The one way Fetcher
 * puts a deadline on a promise it cannot cancel: `settlesWithin` when only whether it settled
 * matters, `withDeadline` when its value or failure does, `raceDeadline` when a signal can also
 * stop it and something must be cut when either does.
 */

/** True once `work` has settled (either way), false when `ms` pass first. Never rejects. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), Math.max(0, ms));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

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
  /** The deadline alone does not keep the process alive (a wait during shutdown). */
  unrefTimer = false,
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
      if (unrefTimer) timer.unref();
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

/**
 * `work`, or a rejection with `timeoutError()` once `ms` pass first; whatever `work` does afterwards
 * is ignored. `unref`: the deadline alone does not keep the process alive.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, timeoutError: () => Error, { unref = false } = {}): Promise<T> {
  return raceDeadline(work, ms, undefined, timeoutError, () => undefined, unref);
}
