import { settlesWithin } from '../../concurrency/settles-within.js';

/**
 * How long an abort may take, from the signal to the rejection, whatever the server does. A
 * server that ignores the cancel (or never answers the cancel connection) gets its socket cut.
 */
export const ABORT_BUDGET_MS = 1_500;

/**
 * One read of a row stream (or one catalog query), raced against the caller's signal. When the
 * signal wins, `interrupt` stops the statement on the server before the abort reason is thrown, so
 * an aborted job leaves nothing running; if it has not finished within ABORT_BUDGET_MS, `sever`
 * cuts the connection (the session is then lost) and the reason is thrown anyway, while the
 * interrupt carries on in the background. Any other failure becomes the connector's own (safe) error.
 */
export async function abortableRead<T>(
  start: () => Promise<T>,
  signal: AbortSignal,
  interrupt: (read: Promise<T>) => Promise<void>,
  failure: (error: unknown) => Error,
  sever?: () => void,
): Promise<T> {
  signal.throwIfAborted();
  const read = start();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([read, aborted]);
    if (outcome === 'aborted') {
      if (!(await settlesWithin(interrupt(read), ABORT_BUDGET_MS))) sever?.();
      throw signal.reason;
    }
    return outcome;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw failure(error);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}
