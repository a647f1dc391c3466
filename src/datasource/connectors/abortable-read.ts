/**
 * One read of a row stream, raced against the job's signal. When the signal wins, `interrupt`
 * stops the statement on the server before the abort reason is thrown, so an aborted job leaves
 * nothing running; any other failure is turned into the connector's own (safe) error.
 */
export async function abortableRead<T>(
  start: () => Promise<T>,
  signal: AbortSignal,
  interrupt: (read: Promise<T>) => Promise<void>,
  failure: (error: unknown) => Error,
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
      await interrupt(read);
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
