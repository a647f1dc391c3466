/** FIFO counting semaphore: waiters are served in the order they asked. */
export class Semaphore {
  private readonly waiters: (() => void)[] = [];

  constructor(private available: number) {}

  async acquire(): Promise<void> {
    if (this.available > 0) {
      this.available -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.available += 1;
  }
}
