import { Inject, Injectable } from '@nestjs/common';
import { FetCode } from '../common/errors/fet-code.js';
import { FetcherError, type ErrorDetail } from '../common/errors/fetcher.error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { ConnectorSession, ResolvedDatasource } from '../datasource/connectors/shared/engine-connector.js';
import { DatasourceConnectError } from '../datasource/datasource.error.js';
import { DatasourceResolver } from '../datasource/datasource-resolver.service.js';
import { DatasourceSessions } from '../datasource/datasource-sessions.service.js';
import { collectRequestedTables, matchRequestedTables, schemasOf } from '../datasource/schema/mapped-tables.js';
import type { Filters } from '../request/data-request.js';
import { checkDataRequest } from '../job/data-request-check.js';
import { effectiveLimits } from '../request/data-request.validator.js';
import type { JobRecord } from '../job/job.entity.js';
import { mapWithConcurrency } from './concurrency.js';
import type { DatasourcePlan, ExtractionPlan } from './extraction-plan.js';
import { ExtractionError } from './extraction.error.js';

const CONNECT_TIMEOUT_MS = 15_000;

type PlanOutcome =
  | { readonly ok: true; readonly plan: DatasourcePlan }
  | {
      readonly ok: false;
      readonly details: ErrorDetail[];
      readonly session?: ConnectorSession;
      /** Why the datasource could not be used at all (unreachable, refused host), as opposed to unknown names. */
      readonly unavailable?: FetCode;
    };

/**
 * Resolves every datasource, discovers only the namespaces the job names (once per datasource),
 * and validates every table, field and filter field before any data query. All offenders are
 * reported together.
 */
@Injectable()
export class ExtractionPlanner {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly resolver: DatasourceResolver,
    private readonly sessions: DatasourceSessions,
  ) {}

  async plan(job: JobRecord, signal: AbortSignal): Promise<ExtractionPlan> {
    checkDataRequest(
      { mappedFields: job.mappedFields, filters: job.filters ?? undefined, limits: job.limits ?? undefined },
      this.config.extraction,
    );
    const limits = effectiveLimits(this.config.extraction, job.limits);
    const configNames = Object.keys(job.mappedFields).sort();
    const resolved = await this.resolver.resolve(configNames);

    const outcomes = await mapWithConcurrency(configNames, limits.maxParallelDatasources, async (configName): Promise<PlanOutcome> => {
      const datasource = resolved.get(configName);
      if (!datasource) return { ok: false, details: [{ type: 'datasource_not_found', datasource: configName }] };
      return this.planDatasource(datasource, job.mappedFields[configName], job.filters, signal);
    });

    const closeAll = () =>
      Promise.allSettled(outcomes.map((outcome) => (outcome.ok ? outcome.plan.session.close() : outcome.session?.close())));
    if (signal.aborted) {
      await closeAll();
      throw signal.reason;
    }
    const failures = outcomes.filter((outcome): outcome is Extract<PlanOutcome, { ok: false }> => !outcome.ok);
    if (failures.length === 0) {
      return { datasources: outcomes.map((outcome) => (outcome as Extract<PlanOutcome, { ok: true }>).plan), limits };
    }
    await closeAll();
    throw planningError(failures);
  }

  /** Never throws: every failure becomes an outcome, so sessions opened by others can be closed. */
  private async planDatasource(
    datasource: ResolvedDatasource,
    mapped: Record<string, string[]>,
    filters: Filters | null,
    signal: AbortSignal,
  ): Promise<PlanOutcome> {
    const configName = datasource.configName;
    const requested = collectRequestedTables(
      mapped,
      filters && Object.hasOwn(filters, configName) ? filters[configName] : undefined,
      this.sessions.defaultSchema(datasource),
      this.sessions.canonicalName(datasource),
    );
    let session: ConnectorSession;
    try {
      session = await this.sessions.open(datasource, { connectTimeoutMs: CONNECT_TIMEOUT_MS, signal });
    } catch (error) {
      return unavailable(configName, error);
    }
    try {
      const snapshot = await session.discover(schemasOf(requested), signal);
      const { tables, details } = matchRequestedTables(configName, requested, snapshot);
      return details.length > 0 ? { ok: false, details, session } : { ok: true, plan: { configName, datasource, session, tables } };
    } catch (error) {
      // The job's deadline or a shutdown: plan() rethrows the signal's reason.
      if (signal.aborted) return { ok: false, session, details: [] };
      const message = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        session,
        unavailable: FetCode.ConnectionDown,
        details: [{ type: 'datasource_unavailable', datasource: configName, message: `schema discovery failed: ${message}` }],
      };
    }
  }
}

function unavailable(configName: string, error: unknown): PlanOutcome {
  if (error instanceof FetcherError) {
    // The SSRF guard refused the host: the job fails with its code, not as "unreachable".
    return {
      ok: false,
      unavailable: error.code,
      details: [{ type: 'datasource_unavailable', datasource: configName, message: error.message }],
    };
  }
  const reason = error instanceof DatasourceConnectError ? error.reason : 'unknown';
  const message = error instanceof DatasourceConnectError ? error.message : `cannot connect to datasource '${configName}'`;
  return {
    ok: false,
    unavailable: FetCode.ConnectionDown,
    details: [{ type: 'datasource_unavailable', datasource: configName, reason, message }],
  };
}

function planningError(failures: Extract<PlanOutcome, { ok: false }>[]): ExtractionError {
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
