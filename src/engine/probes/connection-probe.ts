import { ABORT_BUDGET_MS } from '../connectors/shared/abortable-read.js';
import { discoverWithinBudget } from '../connectors/shared/bounded-discovery.js';
import type { ResolvedDatasource, SchemaSnapshot } from '../connectors/shared/engine-connector.js';
import { addressKey } from '../egress/ip-address.js';
import type { EgressTarget } from '../egress/egress-policy.js';
import { DatasourceConnectError } from '../errors/datasource-errors.js';
import { DatasourceProbeError } from '../errors/engine-errors.js';
import { FetCode } from '../errors/fet-code.js';
import { FetcherError } from '../errors/fetcher-error.js';
import type { DatasourceSessions } from '../sessions/datasource-sessions.js';

export type ConnectionTestResult =
  { readonly ok: true; readonly latencyMs: number } | { readonly ok: false; readonly error: DatasourceConnectError };

/**
 * Runs a test or a discovery once the caller lets it (the service's caps on connections open at
 * once, in all and per host); waiting counts against `signal`. `host` is the address the
 * connection will dial, in one spelling per address (addressKey), so `DB.x`, `db.x.` and the IP
 * they resolve to share one cap; an internal datasource, which connects by name, gives its name.
 */
export type TestGate = <T>(host: string, signal: AbortSignal, test: () => Promise<T>) => Promise<T>;

const UNGATED: TestGate = (_host, _signal, test) => test();

/** What a gate keys its per-host cap on: the checked address, or the name of an internal datasource. */
export function gateHost(datasource: ResolvedDatasource, target: EgressTarget | undefined): string {
  return addressKey(target?.address ?? datasource.host);
}

/**
 * Opens a real connection to a datasource and closes it again, all within `timeoutMs`; a pooled
 * session that answers a ping serves instead (SessionPool), and a fresh one goes back to the
 * pool when it is reusable. A failed
 * connect is an outcome (`ok: false` with the connector's safe message and reason); a host the
 * egress policy refuses is thrown (FET-0414), not reported as a failed test.
 */
export async function testConnection(
  sessions: DatasourceSessions,
  datasource: ResolvedDatasource,
  timeoutMs: number,
  gate: TestGate = UNGATED,
  caller?: AbortSignal,
): Promise<ConnectionTestResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  const stop = caller ? AbortSignal.any([signal, caller]) : signal;
  let started: number | undefined;
  let waiting = false;
  try {
    // A pooled session proves the server answers with its ping: that is this test's round trip.
    started = performance.now();
    const pooled = await sessions.reuse(datasource, stop);
    if (pooled !== undefined) {
      const latencyMs = Math.max(1, Math.round(performance.now() - started));
      await pooled.close();
      return { ok: true, latencyMs } as const;
    }
    started = undefined;
    const target = await sessions.target(datasource);
    waiting = true;
    return await gate(gateHost(datasource, target), stop, async () => {
      started = performance.now();
      const session = await sessions.open(datasource, { connectTimeoutMs: timeoutMs, signal: stop }, target);
      const latencyMs = Math.max(1, Math.round(performance.now() - started));
      await session.close();
      return { ok: true, latencyMs } as const;
    });
  } catch (error) {
    // The caller gave up: that is not an outcome of the test.
    if (caller?.aborted) throw caller.reason;
    if (error instanceof DatasourceConnectError) return { ok: false, error };
    const { configName } = datasource;
    if (signal.aborted && waiting && started === undefined) {
      const message = `cannot test datasource '${configName}' within ${timeoutMs} ms: too many connection tests are running; retry shortly`;
      return { ok: false, error: new DatasourceConnectError(configName, 'timeout', message) };
    }
    if (signal.aborted) {
      const message = `cannot connect to datasource '${configName}': no answer within ${timeoutMs} ms`;
      return { ok: false, error: new DatasourceConnectError(configName, 'timeout', message) };
    }
    if (error instanceof FetcherError) throw error;
    return { ok: false, error: new DatasourceConnectError(configName, 'unknown', `cannot connect to datasource '${configName}'`) };
  }
}

export interface DiscoveryLimits {
  /** The whole discovery, connect and any wait for the gate included; FET-1043 once it passes. */
  readonly deadlineMs: number;
  /** The connect alone, at most the deadline. */
  readonly connectTimeoutMs: number;
  /** Bytes of catalog the discovery may read; FET-1044 past them. */
  readonly maxCatalogBytes: number;
  /** Holds the discovery for a slot of the caps it shares with connection tests. */
  readonly gate?: TestGate;
}

/**
 * Opens the datasource and discovers `schemas` (null: every readable namespace) within the
 * deadline: the catalog query is cancelled on the server in time for the call to fail with
 * FET-1043 within that deadline, whatever the server does; a catalog over its byte budget fails
 * with FET-1044 and its connection is cut. The session is closed before the gate's slot is given
 * back. Other failures are thrown as they are (see discoveryFailure for what a caller shows).
 */
export async function discoverSchema(
  sessions: DatasourceSessions,
  datasource: ResolvedDatasource,
  schemas: readonly string[] | null,
  { deadlineMs, connectTimeoutMs, maxCatalogBytes, gate = UNGATED }: DiscoveryLimits,
  caller?: AbortSignal,
): Promise<SchemaSnapshot> {
  // The abort fires early enough for the cancel (at most ABORT_BUDGET_MS) to fit in the deadline.
  const deadline = AbortSignal.timeout(Math.max(Math.floor(deadlineMs / 2), deadlineMs - ABORT_BUDGET_MS));
  const stop = caller ? AbortSignal.any([deadline, caller]) : deadline;
  let stage: 'resolving' | 'waiting' | 'started' = 'resolving';
  try {
    const target = await sessions.target(datasource);
    stage = 'waiting';
    return await gate(gateHost(datasource, target), stop, async () => {
      stage = 'started';
      const connect = { connectTimeoutMs: Math.min(connectTimeoutMs, deadlineMs), signal: stop };
      const session = await sessions.acquire(datasource, connect, target);
      try {
        return await discoverWithinBudget(session, schemas, stop, maxCatalogBytes, datasource.configName);
      } finally {
        await session.close();
      }
    });
  } catch (error) {
    if (caller?.aborted) throw caller.reason;
    if (!deadline.aborted) throw error;
    const message =
      stage === 'waiting'
        ? `cannot discover datasource '${datasource.configName}' within ${deadlineMs} ms: too many connection tests and schema discoveries are running; retry shortly`
        : `datasource '${datasource.configName}' did not answer its schema discovery within ${deadlineMs} ms; the query was cancelled`;
    throw new DatasourceProbeError(FetCode.SchemaDiscoveryTimeout, message, { extra: { reason: 'timeout' } });
  }
}

/** A message fit for a caller: our own errors' messages, never anything that is not an Error. */
export function safeMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'discovery failed';
}

/** A connect that failed, as a caller sees it: the connector's message, and its reason in `extra.reason`. */
export function connectionFailed(code: FetCode, error: DatasourceConnectError): DatasourceProbeError {
  return new DatasourceProbeError(code, error.message, { extra: { reason: error.reason } });
}

/** A live discovery that failed: our own errors as they are, a connect as FET-1041, anything else as FET-1042. */
export function discoveryFailure(error: unknown): unknown {
  if (error instanceof FetcherError) return error;
  if (error instanceof DatasourceConnectError) return connectionFailed(FetCode.ConnectionTestFailed, error);
  return new DatasourceProbeError(FetCode.SchemaDiscoveryFailed, `Failed to retrieve database schema information: ${safeMessage(error)}`, {
    extra: { reason: 'unknown' },
  });
}
