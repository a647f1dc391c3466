/**
 * A batch's `release` (RowBatch): hands its buffer back for reuse once, however often the
 * consumer calls it, so one buffer never serves two batches at a time.
 */
export function releaseOnce(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
