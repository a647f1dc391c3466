import { raceDeadline, settleOrCut } from './settle.js';

/** How long a statement may take to end once the server has agreed to stop it, before its socket is cut. */
export const SETTLE_AFTER_CANCEL_MS = 2_000;

/**
 * Stops a running statement from a second connection (KILL QUERY, pg_cancel_backend): `cancel`
 * resolves whether that request got through. Then `running` gets SETTLE_AFTER_CANCEL_MS to end, or
 * no time at all when the request did not get through; if it has not ended, `cut` severs the
 * connection so nothing keeps streaming into it (the session is then lost). Never rejects.
 */
export async function cancelOrCut(cancel: Promise<boolean>, running: Promise<unknown>, cut: () => void): Promise<void> {
  await settleOrCut(running, (await cancel) ? SETTLE_AFTER_CANCEL_MS : 0, cut);
}

/** A short-lived second connection that asks the server to stop a statement of the session's. */
export interface CancelConnection<C> {
  /** Opens it (same options as the session's), within the cancel deadline of its own. */
  open(): Promise<C>;
  /** Sends the cancel; resolves whether the server agreed. */
  cancel(connection: C): Promise<boolean>;
  /** Cuts its socket: the cancel did not answer in time. */
  cut(connection: C): void;
  /** Ends it politely, or cuts it after `timeoutMs`. */
  end(connection: C, timeoutMs: number): Promise<void>;
}

/** How long the cancel connection may take to say goodbye. */
const END_CANCEL_CONNECTION_MS = 1_000;

/**
 * Opens `side`, sends its cancel within `timeoutMs` (cut when later), then ends it. Resolves false
 * when the connection or the cancel fails or is late; never throws.
 */
export async function cancelFromSecondConnection<C>(side: CancelConnection<C>, timeoutMs: number): Promise<boolean> {
  let connection: C | undefined;
  try {
    const opened = (connection = await side.open());
    return await raceDeadline(
      side.cancel(opened),
      timeoutMs,
      undefined,
      () => new Error('cancel timeout'),
      () => side.cut(opened),
    );
  } catch {
    return false;
  } finally {
    if (connection !== undefined) await side.end(connection, END_CANCEL_CONNECTION_MS);
  }
}
