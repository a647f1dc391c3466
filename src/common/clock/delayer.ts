export interface DelayOptions {
  /** The wait does not keep the process alive (work nobody needs once the process is leaving). */
  readonly unref?: boolean;
}

/** What a PeriodicTask needs of a Scheduler: one deferred call it can cancel. */
export interface Delayer {
  /** Calls `callback` once after `delayMs`; the returned function cancels a call not yet made. */
  delay(delayMs: number, callback: () => Promise<void>, options?: DelayOptions): () => void;
}
