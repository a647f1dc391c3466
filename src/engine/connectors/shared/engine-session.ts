import { DatasourceQueryError } from '../../errors/datasource-errors.js';
import { ValueTooLargeError } from './read-budget.js';

/** How long a session's close() may take before whatever still holds it is cut. */
export const CLOSE_TIMEOUT_MS = 2_000;

/**
 * What every engine's session knows of its own state, and the errors its calls fail with: once
 * close() has begun, "Session is closed"; once the connection is gone (cut here, or dropped by the
 * server), "Connection lost: …" with the reason. `describe` gives an engine error's safe text (no
 * SQL, no filter values, no login names).
 */
export abstract class EngineSession {
  /** Why the connection is gone, once it is: every later call fails with it. */
  protected lost: Error | undefined;
  protected closing: Promise<void> | undefined;

  protected constructor(
    protected readonly configName: string,
    private readonly describe: (error: unknown) => string,
  ) {}

  /** Throws unless a statement may run on the session (`table`: the read it is for). */
  protected assertUsable(table?: string): void {
    this.assertOpen(table);
    const lost = this.lostReason();
    if (lost !== undefined) throw new DatasourceQueryError(this.configName, `Connection lost: ${this.describe(lost)}`, table);
  }

  /** Throws once close() has begun: a consumer that still holds an iterator gets no more rows. */
  protected assertOpen(table?: string): void {
    if (this.closing !== undefined) throw new DatasourceQueryError(this.configName, 'Session is closed', table);
  }

  /** Why the connection is gone, if it is. A driver that emits nothing when its socket dies is asked here. */
  protected lostReason(): Error | undefined {
    return this.lost;
  }

  protected discoveryFailure(error: unknown): DatasourceQueryError {
    return new DatasourceQueryError(this.configName, `Schema discovery failed: ${this.describe(error)}`);
  }

  /** A failed read of `table`: a value too large for the result stays itself, anything else becomes the engine's safe text. */
  protected readFailure(error: unknown, table: string): Error {
    if (error instanceof ValueTooLargeError) return error;
    return new DatasourceQueryError(this.configName, `Reading ${this.readsFrom} "${table}" failed: ${this.describe(error)}`, table);
  }

  /** What a read reads from, in its failure's message. */
  protected get readsFrom(): string {
    return 'table';
  }
}
