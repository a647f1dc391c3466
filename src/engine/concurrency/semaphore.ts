/** FIFO counting semaphore: waiters are served in the order they asked. */
export class Semaphore {
  private readonly waiters: (() => void)[] = [];

  constructor(private available: number) {}

  /** Waits for a permit; an abort while waiting gives up the place in line and rejects with the signal's reason. */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.available > 0) {
      this.available -= 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(grant);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      this.waiters.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.available += 1;
  }

  /** Nobody holds or waits for a permit (given the number it started with). */
  idle(capacity: number): boolean {
    return this.available === capacity && this.waiters.length === 0;
  }
}
