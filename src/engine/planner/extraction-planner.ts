import { discoverWithinBudget } from '../connectors/shared/bounded-discovery.js';
import type { ConnectorSession, ResolvedDatasource, SchemaSnapshot } from '../connectors/shared/engine-connector.js';
import { DatasourceConnectError } from '../errors/datasource-errors.js';
import { DatasourceProbeError, ExtractionError } from '../errors/engine-errors.js';
import { FetCode } from '../errors/fet-code.js';
import { FetcherError, type ErrorDetail } from '../errors/fetcher-error.js';
import type { ExtractionPlan } from '../executor/extraction-plan.js';
import type { ExtractionCeilings } from '../request/data-request.js';
import type { DatasourceSessions } from '../sessions/datasource-sessions.js';
import { ATTR, SPAN } from '../tracing/span-names.js';
import { NO_TRACING, type EngineTracer } from '../tracing/engine-tracer.js';
import { collectRequested, matchRequested, type DatasourceMatch, type SchemaRequest } from './requested-schema.js';
import { applyCursors } from './planned-cursors.js';
import type { IncrementalRequest, StreamMarks } from '../request/incremental-request.js';

export interface PlanInput {
  /** A request that passed validateDataRequest. */
  readonly request: SchemaRequest;
  /** Every datasource found for a name of the request; a name without one fails with FET-1020. */
  readonly datasources: ReadonlyMap<string, ResolvedDatasource>;
  /** This extraction's limits (the ceilings lowered by the request's own). */
  readonly limits: ExtractionCeilings;
  readonly connectTimeoutMs: number;
  /** Each datasource's discovery, after its connect; FET-1043 once it passes. */
  readonly discoveryTimeoutMs: number;
  /** Bytes of catalog each datasource's discovery may read; FET-1044 past them. */
  readonly discoveryMaxBytes: number;
  readonly signal: AbortSignal;
  /** An incremental request (validated), and the stream's committed marks its ranges start above. */
  readonly incremental?: IncrementalRequest;
  readonly marks?: StreamMarks;
}

type PlanFailure = {
  readonly details: readonly ErrorDetail[];
  /** Why the datasource could not be used at all (unreachable, refused host), as opposed to unknown names. */
  readonly unavailable?: FetCode;
};

/**
 * Discovers only the namespaces a request names (once per datasource, on the session its
 * extraction then reads through), and validates every table, field and filter field before any
 * data query. All offenders are reported together; on any failure every session is closed.
 */
export class ExtractionPlanner {
  constructor(
    private readonly sessions: DatasourceSessions,
    private readonly tracer: EngineTracer = NO_TRACING,
  ) {}

  plan(input: PlanInput): Promise<ExtractionPlan> {
    const datasources = Object.keys(input.request.mappedFields).length;
    return this.tracer.inSpan(SPAN.plan, { [ATTR.datasourceCount]: datasources }, async (span) => {
      const plan = await this.discoverAndValidate(input);
      const tables = plan.datasources.reduce((sum, datasource) => sum + datasource.tables.length, 0);
      span.setAttribute(ATTR.tableCount, tables);
      return plan;
    });
  }

  private async discoverAndValidate(input: PlanInput): Promise<ExtractionPlan> {
    const { request, datasources, limits, connectTimeoutMs, signal } = input;
    const requested = collectRequested(request, datasources, this.sessions);
    const opened = new Map<string, ConnectorSession>();
    const discovered = await matchRequested(requested, limits.maxParallelDatasources, async (datasource, schemas) => {
      const session = await this.sessions.acquire(datasource, { connectTimeoutMs, signal });
      opened.set(datasource.configName, session);
      return discoverWithin(session, datasource.configName, schemas, input.discoveryMaxBytes, input.discoveryTimeoutMs, signal);
    });
    const matches = input.incremental ? applyCursors(discovered, input.incremental, input.marks, this.sessions) : discovered;

    const closeAll = () => Promise.allSettled([...opened.values()].map((session) => session.close()));
    if (signal.aborted) {
      // The deadline or a shutdown, whatever planning had reached.
      await closeAll();
      throw signal.reason;
    }
    const failures = matches.flatMap((match) => failureOf(match, opened.has(match.configName)));
    if (failures.length === 0) {
      const planned = matches.map((match) => {
        const { configName, datasource, tables } = match as Extract<DatasourceMatch, { status: 'matched' }>;
        return { configName, datasource, session: opened.get(configName) as ConnectorSession, tables };
      });
      return { datasources: planned, limits };
    }
    await closeAll();
    throw planningError(failures);
  }
}

/**
 * A discovery that a silent server cannot hold past `timeoutMs` (FET-1043) nor a streaming one
 * past its byte budget (FET-1044); the outer signal's abort stays itself.
 */
async function discoverWithin(
  session: ConnectorSession,
  configName: string,
  schemas: readonly string[],
  maxCatalogBytes: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<SchemaSnapshot> {
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    return await discoverWithinBudget(session, schemas, AbortSignal.any([signal, deadline]), maxCatalogBytes, configName);
  } catch (error) {
    if (!deadline.aborted || signal.aborted) throw error;
    throw new DatasourceProbeError(
      FetCode.SchemaDiscoveryTimeout,
      `datasource '${configName}' did not answer its schema discovery within ${timeoutMs} ms; the query was cancelled`,
    );
  }
}

/** Why one datasource cannot be extracted, or nothing when it can; `opened`: its session was opened (discovery failed). */
function failureOf(match: DatasourceMatch, opened: boolean): PlanFailure[] {
  switch (match.status) {
    case 'not_found':
      return [{ details: [{ type: 'datasource_not_found', datasource: match.configName }] }];
    case 'matched':
      return match.details.length > 0 ? [{ details: match.details }] : [];
    case 'unavailable': {
      if (!opened || match.error instanceof FetcherError) return [unavailable(match.configName, match.error)];
      const message = match.error instanceof Error ? match.error.message : String(match.error);
      return [
        {
          unavailable: FetCode.ConnectionDown,
          details: [{ type: 'datasource_unavailable', datasource: match.configName, message: `schema discovery failed: ${message}` }],
        },
      ];
    }
  }
}

function unavailable(configName: string, error: unknown): PlanFailure {
  if (error instanceof FetcherError) {
    // The egress policy refused the host, or discovery passed its deadline: the extraction fails with that code.
    return {
      unavailable: error.code,
      details: [{ type: 'datasource_unavailable', datasource: configName, message: error.message }],
    };
  }
  const reason = error instanceof DatasourceConnectError ? error.reason : 'unknown';
  const message = error instanceof DatasourceConnectError ? error.message : `cannot connect to datasource '${configName}'`;
  return {
    unavailable: FetCode.ConnectionDown,
    details: [{ type: 'datasource_unavailable', datasource: configName, reason, message }],
  };
}

function planningError(failures: readonly PlanFailure[]): ExtractionError {
  const details = failures.flatMap((failure) => failure.details);
  const down = failures.filter((failure) => failure.unavailable !== undefined);
  if (down.length > 0) {
    const names = down.flatMap((failure) => failure.details.map((detail) => detail.datasource)).join(', ');
    return new ExtractionError(down[0].unavailable as FetCode, `datasource(s) unavailable: ${names} — ${down[0].details[0].message}`, {
      details,
    });
  }
  const missing = details.filter((detail) => detail.type === 'datasource_not_found');
  if (missing.length === details.length) {
    return new ExtractionError(
      FetCode.MissingDatasource,
      `no connection configured for datasource(s): ${missing.map((d) => d.datasource).join(', ')}`,
      { details },
    );
  }
  const summary = details
    .map((detail) => `${detail.type} ${[detail.datasource, detail.table, detail.field].filter(Boolean).join('.')}`)
    .join('; ');
  return new ExtractionError(FetCode.SchemaValidationFailed, `extraction request failed schema validation: ${summary}`, { details });
}
