import type { OpenSessionOptions, ResolvedDatasource } from './engine-connector.js';

/** An engine's `toConnectError`: how it reports a failed open of this record (a DatasourceConnectError). */
export type ConnectErrorReport = (error: unknown, datasource: ResolvedDatasource, connectTimeoutMs: number) => Error;

/** A first transport and, where the SSL mode allows it, one other to retry with after a failure of the kind `when` recognises. */
export interface TransportPlan<S> {
  readonly first: S;
  readonly fallback?: { readonly ssl: S; readonly when: (error: unknown) => boolean };
}

/** The cancel connection gets at most this long, so an abort stays prompt on a slow network. */
const MAX_CANCEL_CONNECT_MS = 5_000;

/** Connect timeout of the side connection that cancels a running query (PostgreSQL, MySQL). */
export function cancelConnectTimeoutMs(connectTimeoutMs: number): number {
  return connectTimeoutMs > 0 ? Math.min(connectTimeoutMs, MAX_CANCEL_CONNECT_MS) : MAX_CANCEL_CONNECT_MS;
}

/**
 * The steps of one connector `open()`, with the rules every engine follows: nothing starts once
 * the signal has fired; a record the engine cannot use (an unknown SSL mode, no serviceName) fails
 * like a refused connect; an abort rejects with the signal's reason, never as a connect error;
 * any other failure is reported the engine's way.
 */
export class OpenAttempt {
  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly datasource: ResolvedDatasource,
    private readonly options: OpenSessionOptions,
    private readonly report: ConnectErrorReport,
  ) {
    this.signal = options.signal;
  }

  /** What the connect needs, built from the record before any socket opens. */
  prepare<T>(build: () => T): T {
    this.signal?.throwIfAborted();
    try {
      return build();
    } catch (error) {
      throw this.fail(error);
    }
  }

  /** One connect; `report` replaces the engine's default report when the failure needs more context (SQL Server's login errors). */
  async connect<T>(connect: () => Promise<T>, report: (error: unknown) => Error = (error) => this.fail(error)): Promise<T> {
    try {
      return await connect();
    } catch (error) {
      if (this.signal?.aborted) throw this.signal.reason;
      throw report(error);
    }
  }

  /**
   * Connects over the plan's first transport and, when that fails in the way the plan names,
   * once more over its fallback (libpq's allow/prefer, go-sql-driver's preferred). `explain`
   * picks which failure to report when both fail (the retry's by default). Returns the transport
   * that worked: the cancel connection must use the same.
   */
  async connectWithFallback<S, T>(
    plan: TransportPlan<S>,
    attempt: (ssl: S) => Promise<T>,
    explain: (first: unknown, retry: unknown) => unknown = (_first, retry) => retry,
  ): Promise<{ readonly connected: T; readonly ssl: S }> {
    try {
      return { connected: await attempt(plan.first), ssl: plan.first };
    } catch (first) {
      if (this.signal?.aborted) throw this.signal.reason;
      const fallback = plan.fallback;
      if (fallback === undefined || !fallback.when(first)) throw this.fail(first);
      const connected = await this.connect(
        () => attempt(fallback.ssl),
        (retry) => this.fail(explain(first, retry)),
      );
      return { connected, ssl: fallback.ssl };
    }
  }

  private fail(error: unknown): Error {
    return this.report(error, this.datasource, this.options.connectTimeoutMs);
  }
}
