import { Inject, Injectable, Optional } from '@nestjs/common';
import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError, type ErrorDetail } from '../common/errors/fetcher.error.js';
import { ATTR, SPAN } from '../engine/tracing/span-names.js';
import { Tracing } from '../common/tracing/tracing.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { ConnectorSession } from '../engine/connectors/shared/engine-connector.js';
import { DatasourceConnectError } from '../datasource/datasource.error.js';
import { DatasourceSessions } from '../datasource/datasource-sessions.service.js';
import { RequestedSchemaMatcher, type DatasourceMatch } from '../datasource/schema/requested-schema-matcher.service.js';
import { checkDataRequest } from '../job/data-request-check.js';
import { effectiveLimits } from '../engine/request/data-request.validator.js';
import type { JobRecord } from '../job/job.entity.js';
import type { ExtractionPlan } from '../engine/executor/extraction-plan.js';
import { ExtractionError } from '../engine/errors/extraction-error.js';

const CONNECT_TIMEOUT_MS = 15_000;

type PlanFailure = {
  readonly details: readonly ErrorDetail[];
  /** Why the datasource could not be used at all (unreachable, refused host), as opposed to unknown names. */
  readonly unavailable?: FetCode;
};

/**
 * Resolves every datasource, discovers only the namespaces the job names (once per datasource,
 * on the session its extraction then reads through), and validates every table, field and
 * filter field before any data query. All offenders are reported together.
 */
@Injectable()
export class ExtractionPlanner {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly matcher: RequestedSchemaMatcher,
    private readonly sessions: DatasourceSessions,
    @Optional() private readonly tracing: Tracing = Tracing.disabled(),
  ) {}

  plan(job: JobRecord, signal: AbortSignal): Promise<ExtractionPlan> {
    const datasources = Object.keys(job.mappedFields).length;
    return this.tracing.inSpan(SPAN.plan, { [ATTR.datasourceCount]: datasources }, async (span) => {
      const plan = await this.discoverAndValidate(job, signal);
      const tables = plan.datasources.reduce((sum, datasource) => sum + datasource.tables.length, 0);
      span.setAttribute(ATTR.tableCount, tables);
      return plan;
    });
  }

  private async discoverAndValidate(job: JobRecord, signal: AbortSignal): Promise<ExtractionPlan> {
    checkDataRequest(
      { mappedFields: job.mappedFields, filters: job.filters ?? undefined, limits: job.limits ?? undefined },
      this.config.extraction,
    );
    const limits = effectiveLimits(this.config.extraction, job.limits);
    const requested = await this.matcher.collect({ mappedFields: job.mappedFields, filters: job.filters });

    const opened = new Map<string, ConnectorSession>();
    const matches = await this.matcher.match(requested, limits.maxParallelDatasources, async (datasource, schemas) => {
      const session = await this.sessions.open(datasource, { connectTimeoutMs: CONNECT_TIMEOUT_MS, signal });
      opened.set(datasource.configName, session);
      return session.discover(schemas, signal);
    });

    const closeAll = () => Promise.allSettled([...opened.values()].map((session) => session.close()));
    if (signal.aborted) {
      // The job's deadline or a shutdown, whatever planning had reached.
      await closeAll();
      throw signal.reason;
    }
    const failures = matches.flatMap((match) => failureOf(match, opened.has(match.configName)));
    if (failures.length === 0) {
      const datasources = matches.map((match) => {
        const { configName, datasource, tables } = match as Extract<DatasourceMatch, { status: 'matched' }>;
        return { configName, datasource, session: opened.get(configName) as ConnectorSession, tables };
      });
      return { datasources, limits };
    }
    await closeAll();
    throw planningError(failures);
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
      if (!opened) return [unavailable(match.configName, match.error)];
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
    // The SSRF guard refused the host: the job fails with its code, not as "unreachable".
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
