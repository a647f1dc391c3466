/**
 * How a stream that reads a statement's rows ahead of its one consumer ends and wakes it (MySQL and
 * SQL Server rows, PostgreSQL COPY data). The statement ends once: its rows are done, it failed, or
 * its connection was cut (abandon); the first failure is the one reported. A consumer waiting for
 * rows is woken by either, with no timer and no polling.
 */
export abstract class BatchStream {
  /** What the consumer's next read rejects with (the statement's error, or why the stream was stopped). */
  protected failure: unknown = undefined;
  private ended = false;
  private wake: (() => void) | undefined;
  private readonly ending = Promise.withResolvers<void>();
  /** Resolves once the statement is over on its connection (rows done, failed, cancelled or abandoned). */
  readonly finished: Promise<void> = this.ending.promise;

  get isFinished(): boolean {
    return this.ended;
  }

  /** Settles the stream from outside, when its connection has been cut. */
  abandon(error: Error): void {
    this.finish(error);
  }

  /** Lets the rows flow again (`resumeRows`) and resolves at the next notify(): rows, the end, or a failure. */
  protected rowsArrive(): Promise<void> {
    const ready = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    this.resumeRows();
    return ready;
  }

  /** Reads the connection again after a pause (backpressure). */
  protected abstract resumeRows(): void;

  protected throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** What the stream lets go of once the statement is over (a listener, a guard). */
  protected released(): void {}

  protected finish(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (error !== undefined) this.failure ??= error;
    this.released();
    this.ending.resolve();
    this.notify();
  }

  /** Wakes the consumer waiting in rowsArrive(), if any. */
  protected notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
