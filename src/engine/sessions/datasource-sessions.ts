import { ConnectorRegistry } from '../connectors/shared/connector-registry.js';
import type { ColumnInfo, ConnectorSession, OpenSessionOptions, ResolvedDatasource } from '../connectors/shared/engine-connector.js';
import { DatasourceConnectError } from '../errors/datasource-errors.js';
import { EgressGuard } from '../egress/egress-guard.js';
import type { EgressTarget } from '../egress/egress-policy.js';
import type { CursorKind } from '../incremental/cursor-range.js';
import { LentSession } from './lent-session.js';
import type { SessionPool } from './session-pool.js';

/**
 * The one way into a datasource: finds its engine connector and runs the SSRF guard right before
 * every connect. The host is resolved once and every address checked (FET-0414 when one is
 * refused); the connector then dials the checked address and asks the same policy before any
 * other socket. Internal datasources, declared by the operator, connect by name unchecked. The
 * plaintext-password rule applies to every datasource, internal ones included.
 *
 * With a pool, the session of a datasource that has a `reuseScope` goes back to it on close when
 * its connector says it is reusable, and `acquire`/`reuse` hand it out again once it answered a
 * ping: a pooled session never dials anything, so the egress check of its connect still holds.
 */
export class DatasourceSessions {
  constructor(
    private readonly connectors: ConnectorRegistry,
    private readonly guard: EgressGuard,
    private readonly config: { readonly allowPlaintextPassword: boolean },
    private readonly pool?: SessionPool,
  ) {}

  /** A pooled session of this datasource that answered its ping, or undefined (none pooled, or none answered). */
  async reuse(datasource: ResolvedDatasource, signal?: AbortSignal): Promise<ConnectorSession | undefined> {
    const key = this.pool?.keyOf(datasource);
    if (key === undefined) return undefined;
    const session = await this.pool?.take(key, signal);
    return session === undefined ? undefined : this.lend(key, session, datasource);
  }

  /** `reuse`, else `open`. */
  async acquire(datasource: ResolvedDatasource, options: OpenSessionOptions, target?: EgressTarget): Promise<ConnectorSession> {
    return (await this.reuse(datasource, options.signal)) ?? this.open(datasource, options, target);
  }

  /** Closes the pooled sessions of datasource `id`: its connection was deleted or changed. */
  forget(id: string): Promise<void> {
    return this.pool?.forget(id) ?? Promise.resolve();
  }

  /** Closes every pooled session, and every session closed from now on. */
  closePool(): Promise<void> {
    return this.pool?.close() ?? Promise.resolve();
  }

  /** Namespace of unqualified table names, or null when the engine has none. */
  defaultSchema(datasource: ResolvedDatasource): string | null {
    return this.connectors.find(datasource.type)?.defaultSchema(datasource) ?? null;
  }

  /** The engine's name folding (identity for engines that match names exactly). */
  canonicalName(datasource: ResolvedDatasource): (name: string) => string {
    const connector = this.connectors.find(datasource.type);
    return connector?.canonicalName ? (name) => connector.canonicalName!(name) : (name) => name;
  }

  /** The engine's cursor kinds (docs/incremental.md), or undefined when it has no incremental reads. */
  cursorKinds(datasource: ResolvedDatasource): ((column: ColumnInfo) => CursorKind | null) | undefined {
    const connector = this.connectors.find(datasource.type);
    return connector?.cursorKind ? (column) => connector.cursorKind!(column) : undefined;
  }

  /**
   * The checked address `open` will dial (FET-0414, or `unreachable`, as open would fail), or
   * undefined for an internal datasource, which connects by name. Resolved ahead of `open` when
   * the caller needs to know where the connection goes first (the per-host caps).
   */
  async target(datasource: ResolvedDatasource): Promise<EgressTarget | undefined> {
    if (datasource.internal) return undefined;
    return this.guard.resolveTarget(datasource.host, datasource.configName);
  }

  /**
   * A fresh session (never a pooled one); with a pool it goes back there on close.
   * `target`: what `target()` answered for this datasource, so the name is not resolved twice.
   */
  async open(datasource: ResolvedDatasource, options: OpenSessionOptions, target?: EgressTarget): Promise<ConnectorSession> {
    const session = await this.connect(datasource, options, target);
    const key = this.pool?.keyOf(datasource);
    return key === undefined || session.ping === undefined ? session : this.lend(key, session, datasource);
  }

  /** `session` as its caller holds it: its close hands it back to the pool under `key`. */
  private lend(key: string, session: ConnectorSession, datasource: ResolvedDatasource): ConnectorSession {
    const pool = this.pool as SessionPool;
    return new LentSession(session, datasource.configName, (returned) => pool.give(key, returned));
  }

  private async connect(datasource: ResolvedDatasource, options: OpenSessionOptions, target?: EgressTarget): Promise<ConnectorSession> {
    const connector = this.connectors.find(datasource.type);
    if (!connector) {
      throw new DatasourceConnectError(datasource.configName, 'unknown', `engine ${datasource.type} is not supported yet`);
    }
    const allowPlaintextPassword = this.config.allowPlaintextPassword;
    if (datasource.internal) return connector.open(datasource, { ...options, egress: undefined, allowPlaintextPassword });

    target ??= await this.guard.resolveTarget(datasource.host, datasource.configName);
    const egress = this.guard.egressFor(target, datasource.configName);
    try {
      return await connector.open(datasource, { ...options, egress, allowPlaintextPassword });
    } catch (error) {
      // A refused redirect surfaces from the driver as some socket error: report the refusal.
      if (egress.failure !== undefined && !options.signal?.aborted) throw egress.failure;
      throw error;
    }
  }
}
