import { runInEgressScope } from '../../egress/egress-scope.js';
import { ConnectorBase } from '../shared/connector-base.js';
import type { CursorKind } from '../../incremental/cursor-range.js';
import type { ColumnInfo, ConnectorSession, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';
import { OpenAttempt } from '../shared/open-attempt.js';
import { connectOptions, connectOracle, connectTarget } from './oracle-client.js';
import { toConnectError } from './oracle-connect-error.js';
import { oracleDriver, type OracleDriver } from './oracle-driver.js';
import { ORACLE_ENGINE } from './oracle-engine.js';
import { cursorKindOf } from './oracle-range-read.js';
import { OracleSession } from './oracle-session.js';
import { probeServerChain, tlsPlan, walletFor } from './oracle-ssl.js';

/**
 * The login's schema from a user name: upper-cased (Oracle folds unquoted names), and for proxy
 * authentication (`proxy_user[client_user]`) the client user, whose session it is.
 */
export function loginSchema(userName: string): string {
  const proxied = /^[^[\]]*\[([^[\]]+)\]$/.exec(userName.trim());
  return (proxied === null ? userName.trim() : proxied[1].trim()).toUpperCase();
}

/**
 * Oracle Database through node-oracledb in thin mode (pure JavaScript, no Instant Client).
 * Unqualified table names read the login's schema (docs/api.md, "Tables and result keys"); result
 * keys and column names are Oracle's own, i.e. upper-case for every name created without quotes.
 */
export class OracleConnector extends ConnectorBase {
  readonly facts = ORACLE_ENGINE;

  /** node-oracledb, loaded when first needed. */
  private get driver(): OracleDriver {
    return oracleDriver();
  }

  /**
   * Unquoted Oracle names are upper-case: `accounts`, `Accounts` and `ACCOUNTS` are one table.
   * (An object created with a quoted mixed-case name cannot be requested through the API.)
   */
  canonicalName(name: string): string {
    return name.toUpperCase();
  }

  /** NUMBER, DATE and the TIMESTAMP types (oracle-range-read.ts). */
  cursorKind(column: ColumnInfo): CursorKind | null {
    return cursorKindOf(column);
  }

  /** The login user's schema, or the record's `schema` when set; upper-case. */
  override defaultSchema(datasource: ResolvedDatasource): string {
    return datasource.schemaName ? datasource.schemaName.trim().toUpperCase() : loginSchema(datasource.userName);
  }

  /**
   * With an egress policy the whole connect runs in an egress scope (ssrf/egress-scope.ts):
   * node-oracledb resolves the descriptor's host and follows listener REDIRECTs by itself, and
   * has no socket hook, so each socket it opens is checked as it dials. The descriptor keeps the
   * record's name, which `verify` matches against the certificate. The password never travels
   * in clear (O5LOGON sends it encrypted with a key negotiated for the session), so the
   * plaintext-password rule has nothing to refuse here.
   */
  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const { connectTimeoutMs, signal, egress } = options;
    const attempt = new OpenAttempt(datasource, options, toConnectError);
    const { target, tls } = attempt.prepare(() => ({
      target: connectTarget(datasource),
      tls: tlsPlan(datasource.ssl, datasource.metadata),
    }));
    // Elapsed time, not a time of day: the monotonic clock.
    const started = performance.now();
    const connection = await attempt.connect(async () => {
      let wallet: string | undefined;
      if (tls.trustPresentedChain) {
        // The probe sends no SNI: it can dial the checked address directly.
        const chain = await probeServerChain(egress?.target.address ?? target.host, target.port, connectTimeoutMs, signal);
        wallet = walletFor(datasource.ssl, chain);
      }
      // The probe's time counts against the same deadline.
      const remaining = connectTimeoutMs > 0 ? Math.max(1, connectTimeoutMs - (performance.now() - started)) : connectTimeoutMs;
      const connect = () => connectOracle(this.driver, connectOptions(datasource, target, tls, remaining, wallet), remaining, signal);
      return egress === undefined ? connect() : runInEgressScope(egress, connect);
    });
    return new OracleSession(connection, this.driver, { configName: datasource.configName, defaultSchema: this.defaultSchema(datasource) });
  }
}
