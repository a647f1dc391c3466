import { Inject, Injectable } from '@nestjs/common';
import { FetCode } from '../common/errors/fet-code.js';
import type { ErrorDetail } from '../common/errors/fetcher.error.js';
import { APP_CONFIG, type AppConfig, type ExtractionCeilings } from '../config/app-config.js';
import { ConnectorRegistry } from '../datasource/connectors/connector-registry.js';
import type {
  ColumnInfo,
  ConnectorSession,
  ResolvedDatasource,
  SchemaSnapshot,
  TableReadRequest,
} from '../datasource/connectors/engine-connector.js';
import { DatasourceConnectError } from '../datasource/datasource.error.js';
import { DatasourceResolver } from '../datasource/datasource-resolver.service.js';
import { WILDCARD, type FilterCondition, type Filters } from '../job/data-request.js';
import { effectiveLimits, validateDataRequest } from '../job/data-request.validator.js';
import type { JobRecord } from '../job/job.entity.js';
import { mapWithConcurrency } from './concurrency.js';
import type { DatasourcePlan, ExtractionPlan } from './extraction-plan.js';
import { ExtractionError } from './extraction.error.js';
import { parseTableReference } from './table-reference.js';

const CONNECT_TIMEOUT_MS = 15_000;

interface RequestedTable {
  readonly schema: string | null;
  readonly name: string;
  readonly key: string;
  fields: string[];
  filters: Record<string, FilterCondition>;
}

type PlanOutcome =
  | { readonly ok: true; readonly plan: DatasourcePlan }
  | { readonly ok: false; readonly details: ErrorDetail[]; readonly session?: ConnectorSession; readonly connectFailure?: boolean };

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
    private readonly connectors: ConnectorRegistry,
  ) {}

  async plan(job: JobRecord, signal: AbortSignal): Promise<ExtractionPlan> {
    validateDataRequest({ mappedFields: job.mappedFields, filters: job.filters ?? undefined, limits: job.limits ?? undefined }, this.config.extraction);
    const limits = effectiveLimits(this.config.extraction, job.limits);
    const configNames = Object.keys(job.mappedFields).sort();
    const resolved = await this.resolver.resolve(configNames);

    const outcomes = await mapWithConcurrency(configNames, limits.maxParallelDatasources, async (configName) => {
      const datasource = resolved.get(configName);
      if (!datasource) return { ok: false, details: [{ type: 'datasource_not_found', datasource: configName }] } as PlanOutcome;
      return this.planDatasource(datasource, job.mappedFields[configName], job.filters, signal);
    });

    if (signal.aborted) {
      await Promise.allSettled(outcomes.map((outcome) => (outcome.ok ? outcome.plan.session.close() : outcome.session?.close())));
      throw signal.reason;
    }
    const failures = outcomes.filter((outcome): outcome is Extract<PlanOutcome, { ok: false }> => !outcome.ok);
    if (failures.length === 0) {
      return { datasources: outcomes.map((outcome) => (outcome as Extract<PlanOutcome, { ok: true }>).plan), limits };
    }
    await Promise.allSettled(
      outcomes.map((outcome) => (outcome.ok ? outcome.plan.session.close() : outcome.session?.close())),
    );
    throw planningError(failures, limits);
  }

  private async planDatasource(
    datasource: ResolvedDatasource,
    mapped: Record<string, string[]>,
    filters: Filters | null,
    signal: AbortSignal,
  ): Promise<PlanOutcome> {
    const configName = datasource.configName;
    const connector = this.connectors.find(datasource.type);
    if (!connector) {
      return { ok: false, details: [{ type: 'datasource_unavailable', datasource: configName, message: `engine ${datasource.type} is not supported` }] };
    }
    const requested = collectTables(mapped, filters?.[configName], connector.defaultSchema(datasource));
    let session: ConnectorSession;
    try {
      session = await connector.open(datasource, { connectTimeoutMs: CONNECT_TIMEOUT_MS, signal });
    } catch (error) {
      const message = error instanceof DatasourceConnectError ? error.message : `cannot connect to datasource '${configName}'`;
      const reason = error instanceof DatasourceConnectError ? error.reason : 'unknown';
      return { ok: false, connectFailure: true, details: [{ type: 'datasource_unavailable', datasource: configName, reason, message }] };
    }
    try {
      const schemas = [...new Set([...requested.values()].map((table) => table.schema).filter((s): s is string => s !== null))];
      const snapshot = await session.discover(schemas);
      const { tables, details } = validateTables(configName, requested, snapshot);
      return details.length > 0 ? { ok: false, details, session } : { ok: true, plan: { configName, datasource, session, tables } };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, connectFailure: true, session, details: [{ type: 'datasource_unavailable', datasource: configName, message: `schema discovery failed: ${message}` }] };
    }
  }
}

/** Groups requested tables by result key (`public.x` and `x` are one table) with their filters. */
function collectTables(
  mapped: Record<string, string[]>,
  filters: Record<string, Record<string, FilterCondition>> | undefined,
  defaultSchema: string | null,
): Map<string, RequestedTable> {
  const tables = new Map<string, RequestedTable>();
  for (const [requestedName, fields] of Object.entries(mapped)) {
    const ref = parseTableReference(requestedName, defaultSchema);
    const existing = tables.get(ref.key);
    if (!existing) {
      tables.set(ref.key, { schema: ref.schema, name: ref.name, key: ref.key, fields: [...fields], filters: {} });
    } else if (existing.fields.includes(WILDCARD) || fields.includes(WILDCARD)) {
      existing.fields = [WILDCARD];
    } else {
      existing.fields.push(...fields.filter((field) => !existing.fields.includes(field)));
    }
  }
  for (const [requestedName, conditions] of Object.entries(filters ?? {})) {
    const table = tables.get(parseTableReference(requestedName, defaultSchema).key);
    if (table) Object.assign(table.filters, conditions);
  }
  return tables;
}

function validateTables(
  configName: string,
  requested: Map<string, RequestedTable>,
  snapshot: SchemaSnapshot,
): { tables: TableReadRequest[]; details: ErrorDetail[] } {
  const details: ErrorDetail[] = [];
  const tables: TableReadRequest[] = [];
  for (const table of [...requested.values()].sort((a, b) => compareKeys(a.key, b.key))) {
    const info = snapshot.tables.get(table.key);
    if (!info) {
      details.push({ type: 'table_not_found', datasource: configName, table: table.key });
      continue;
    }
    const byName = new Map(info.columns.map((column) => [column.name, column]));
    const columns: ColumnInfo[] = [];
    if (table.fields.includes(WILDCARD)) {
      columns.push(...info.columns);
    } else {
      for (const field of table.fields) {
        const column = byName.get(field);
        if (column) columns.push(column);
        else details.push({ type: 'field_not_found', datasource: configName, table: table.key, field });
      }
    }
    for (const field of Object.keys(table.filters)) {
      if (!byName.has(field)) details.push({ type: 'invalid_filter', datasource: configName, table: table.key, field, message: `no column '${field}' to filter on` });
    }
    const filters = Object.keys(table.filters).length > 0 ? table.filters : undefined;
    tables.push({ table: info, columns, filters });
  }
  return { tables, details };
}

export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function planningError(failures: Extract<PlanOutcome, { ok: false }>[], limits: ExtractionCeilings): ExtractionError {
  void limits;
  const details = failures.flatMap((failure) => failure.details);
  const unavailable = failures.filter((failure) => failure.connectFailure);
  if (unavailable.length > 0) {
    const names = unavailable.flatMap((failure) => failure.details.map((detail) => detail.datasource)).join(', ');
    const first = unavailable[0].details[0].message;
    return new ExtractionError(FetCode.ConnectionDown, `datasource(s) unavailable: ${names} — ${first}`, { details });
  }
  const missing = details.filter((detail) => detail.type === 'datasource_not_found');
  if (missing.length === details.length) {
    return new ExtractionError(FetCode.MissingDatasource, `no connection configured for datasource(s): ${missing.map((d) => d.datasource).join(', ')}`, { details });
  }
  const summary = details
    .map((detail) => `${detail.type} ${[detail.datasource, detail.table, detail.field].filter(Boolean).join('.')}`)
    .join('; ');
  return new ExtractionError(FetCode.SchemaValidationFailed, `extraction request failed schema validation: ${summary}`, { details });
}
