import { ConnectorRegistry } from '../connectors/shared/connector-registry.js';
import type { ColumnInfo, ConnectorSession, OpenSessionOptions, ResolvedDatasource } from '../connectors/shared/engine-connector.js';
import { DatasourceConnectError } from '../errors/datasource-errors.js';
import { EgressGuard } from '../egress/egress-guard.js';
import type { EgressTarget } from '../egress/egress-policy.js';
import type { CursorKind } from '../incremental/cursor-range.js';

/**
 * The one way into a datasource: finds its engine connector and runs the SSRF guard right before
 * every connect. The host is resolved once and every address checked (FET-0414 when one is
 * refused); the connector then dials the checked address and asks the same policy before any
 * other socket. Internal datasources, declared by the operator, connect by name unchecked. The
 * plaintext-password rule applies to every datasource, internal ones included.
 */
export class DatasourceSessions {
  constructor(
    private readonly connectors: ConnectorRegistry,
    private readonly guard: EgressGuard,
    private readonly config: { readonly allowPlaintextPassword: boolean },
  ) {}

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

  /** `target`: what `target()` answered for this datasource, so the name is not resolved twice. */
  async open(datasource: ResolvedDatasource, options: OpenSessionOptions, target?: EgressTarget): Promise<ConnectorSession> {
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
