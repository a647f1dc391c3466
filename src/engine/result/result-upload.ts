/**
 * Where one result's bytes go. Nothing is visible under its name until `complete` resolves; the
 * service's object stores are these, and so is the engine's adapter for a Node Writable.
 */
export interface ResultUpload {
  /**
   * Resolves when the chunk is accepted; waits (backpressure) while earlier parts are in flight.
   * Once it resolves the upload holds no reference to `chunk`: the caller may reuse its memory.
   */
  write(chunk: Buffer): Promise<void>;
  /** Makes the result visible, atomically. */
  complete(): Promise<void>;
  /** Discards everything written; never throws. Safe to call after a failed write or complete. */
  abort(): Promise<void>;
}
