/**
 * A bounded wait: a driver call against a server that stopped answering, or a job handler that
 * ignores its abort, must never hold a job, a connection test or a shutdown.
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
