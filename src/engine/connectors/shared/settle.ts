/**
 * Bounded waits shared by the connectors: a driver call against a server that stopped answering
 * must never hold a job, a connection test or a shutdown.
 */

import { raceDeadline, settlesWithin } from '../../concurrency/settles-within.js';
import { ConnectTimeoutError } from './connect-failure.js';

export { raceDeadline, settlesWithin };

/**
 * A connect attempt (`work`) within `timeoutMs` (<= 0: no deadline of ours) and the signal. However
 * it ends other than in success (its own failure, the deadline: ConnectTimeoutError, the abort),
 * `abandon` runs at once (cut the attempt's sockets; nothing has run on the server yet) and this
 * rejects with the signal's reason when aborted, else with the error, raw, for the caller to classify.
 */
export async function connectWithin<T>(
  work: Promise<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  abandon: () => void,
): Promise<T> {
  try {
    return await raceDeadline(
      work,
      timeoutMs,
      signal,
      () => new ConnectTimeoutError('connect timeout'),
      () => undefined,
    );
  } catch (error) {
    abandon();
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/**
 * Waits up to `timeoutMs` for `work` to settle, either way; when it has not, `cut` severs the
 * connection. For what a silent server must not hold: a statement being stopped, a cursor being
 * closed, a goodbye. Never rejects.
 */
export async function settleOrCut(work: Promise<unknown>, timeoutMs: number, cut: () => void): Promise<void> {
  if (!(await settlesWithin(work, timeoutMs))) cut();
}
