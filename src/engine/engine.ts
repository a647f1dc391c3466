import { schemaCacheKey, type SchemaCache } from './cache/schema-cache.js';
import { defaultConnectors } from './connectors/default-connectors.js';
import type { ResolvedDatasource, SchemaSnapshot } from './connectors/shared/engine-connector.js';
import { ConnectorRegistry } from './connectors/shared/connector-registry.js';
import { decodeMasterKey } from './crypto/key-text.js';
import { deriveResultKeys } from './crypto/key-derivation.js';
import { resolveDescriptor } from './datasources/datasource-descriptor.js';
import { parseDatasourceUrl } from './datasources/datasource-url.js';
import { resolveMongoSrv } from './datasources/mongodb-srv.js';
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './engine-options.js';
import { EngineOptionsError, ExtractionError } from './errors/engine-errors.js';
import { FetCode } from './errors/fet-code.js';
import { executePlan } from './executor/extraction-executor.js';
import type { ExtractionPlan } from './executor/extraction-plan.js';
import type { DatasourceInput, ExtractRequest, ExtractResult, ExtractSink, OutputOptions } from './extract-request.js';
import { ProgressRelay } from './output/progress-relay.js';
import { abortSink, openStage, type ResultStage } from './output/result-stage.js';
import { outputProblems, resolveOutput, type ResultOutput } from './formats/output-format.js';
import { ExtractionPlanner } from './planner/extraction-planner.js';
import { compareKeys } from './planner/mapped-tables.js';
import {
  connectionFailed,
  discoverSchema,
  discoveryFailure,
  testConnection,
  type ConnectionTestResult,
  type TestGate,
} from './probes/connection-probe.js';
import { effectiveLimits, validateDataRequest } from './request/data-request.validator.js';
import type { IncrementalRequest } from './request/incremental-request.js';
import { incrementalOutcome } from './incremental/incremental-outcome.js';
import { markProblems } from './incremental/stream-marks.js';
import type { DataRequestLimits, ExtractionCeilings, Filters, MappedFields } from './request/data-request.js';
import type { SealingKeys } from './result/result-encoding.js';
import { DatasourceSessions } from './sessions/datasource-sessions.js';
import { SessionPool } from './sessions/session-pool.js';
import { SILENT_LOGGER } from './support/engine-logger.js';
import { NO_TRACING, type EngineTracer } from './tracing/engine-tracer.js';
import { ATTR, SPAN } from './tracing/span-names.js';

/** A discovered schema as `discover()` returns it: tables sorted by result key, columns in table order. */
export interface DiscoveredSchema {
  readonly tables: readonly DiscoveredTable[];
}

export interface DiscoveredTable {
  /** The result key: `schema.table`, or `table` in the default schema (docs/api.md, "Tables and result keys"). */
  readonly key: string;
  readonly schema: string | null;
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly primaryKey: readonly string[];
}

export interface ProbeOptions {
  /** The name the datasource goes by in messages. Default `datasource`. */
  readonly name?: string;
  readonly signal?: AbortSignal;
}

/**
 * Fetcher's extraction engine, without the service around it: what the worker runs for every
 * job, what `fetcher extract` runs, and what a product embeds (docs/engine.md).
 */
export class Engine {
  /** The ceilings of every extraction; a request's own `limits` may only lower them. */
  readonly limits: ExtractionCeilings;
  private readonly options: ResolvedEngineOptions;
  private readonly sessions: DatasourceSessions;
  private readonly planner: ExtractionPlanner;
  private readonly tracer: EngineTracer;
  private readonly schemaCache?: SchemaCache;

  constructor(options: EngineOptions = {}) {
    this.options = resolveEngineOptions(options);
    this.limits = this.options.limits;
    this.tracer = options.tracer ?? NO_TRACING;
    this.schemaCache = options.schemaCache;
    const connectors =
      options.connectors ?? defaultConnectors({ postgresReadPath: options.postgresReadPath, logger: options.logger ?? SILENT_LOGGER });
    const pool = this.options.sessionPool ? new SessionPool(this.options.sessionPool) : undefined;
    this.sessions = new DatasourceSessions(
      new ConnectorRegistry(connectors),
      this.options.guard,
      { allowPlaintextPassword: this.options.allowPlaintextPassword },
      pool,
    );
    this.planner = new ExtractionPlanner(this.sessions, this.tracer);
  }

  /** How each engine spells names (its default namespace and folding): what planning and validate-schema match with. */
  get nameRules(): Pick<DatasourceSessions, 'defaultSchema' | 'canonicalName'> {
    return this.sessions;
  }

  /** The name rules with each engine's cursor kinds (docs/incremental.md): what a caller checks cursors with as planning does. */
  get cursorRules(): Pick<DatasourceSessions, 'defaultSchema' | 'canonicalName' | 'cursorKinds'> {
    return this.sessions;
  }

  /**
   * Extracts `dataRequest` from `datasources` into `sink`, or into memory without one (bounded by
   * the result limit). Resolves once every byte was accepted and the sink completed; on any
   * failure the sink is aborted (a Writable is destroyed), every session closed, and the call
   * rejects with a FetcherError carrying the FET code the service would give the job.
   */
  async extract(request: ExtractRequest, sink?: ExtractSink): Promise<ExtractResult> {
    let stage: { readonly result: ResultStage; readonly timeout: AbortSignal; readonly timeoutMs: number } | undefined;
    let plan: ExtractionPlan | undefined;
    try {
      const output = outputOf(request.output);
      validateDataRequest(request.dataRequest, this.limits);
      const incremental = request.dataRequest.incremental as IncrementalRequest | undefined;
      checkMarks(request.marks, incremental);
      const mappedFields = request.dataRequest.mappedFields as MappedFields;
      const limits = effectiveLimits(this.limits, request.dataRequest.limits as DataRequestLimits | undefined);
      const timeout = AbortSignal.timeout(limits.timeoutMs);
      const progress = request.onProgress ? new ProgressRelay(request.onProgress) : undefined;
      const seal = request.output?.seal === undefined ? undefined : sealingKeys(request.output.seal);
      const result = openStage({
        output,
        sink,
        maxBytes: limits.maxResultBytes,
        seal,
        onBytes: progress ? (bytes, engine) => progress.bytesWritten(bytes, engine) : undefined,
      });
      stage = { result, timeout, timeoutMs: limits.timeoutMs };
      const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
      const datasources = await this.resolveNamed(request.datasources, Object.keys(mappedFields));
      plan = await this.planner.plan({
        request: { mappedFields, filters: (request.dataRequest.filters as Filters | undefined) ?? null },
        datasources,
        limits,
        connectTimeoutMs: this.options.connectTimeoutMs,
        discoveryTimeoutMs: this.options.discoveryTimeoutMs,
        discoveryMaxBytes: this.options.discoveryMaxBytes,
        signal,
        ...(incremental ? { incremental, marks: request.marks } : {}),
      });
      progress?.planned(plan);
      const stats = await executePlan(plan, result.layout, signal, { checkpoint: request.checkpoint, progress, tracer: this.tracer });
      signal.throwIfAborted();
      const written = await this.tracer.inSpan(SPAN.seal, {}, async (span) => {
        const finished = await result.finish();
        span.setAttribute(ATTR.resultBytes, finished.sizeBytes);
        return finished;
      });
      const ranges = incremental ? { incremental: incrementalOutcome(incremental, plan, stats) } : {};
      return {
        format: output.format,
        compression: output.compression,
        rowCount: stats.rowCount,
        rowCounts: stats.rowCounts,
        ...written,
        ...ranges,
      };
    } catch (error) {
      // Refused before a stage existed (the request, the output, a datasource): the sink is aborted all the same.
      await (stage === undefined ? abortSink(sink) : stage.result.abort());
      throw stage === undefined ? error : stopped(error, stage.timeout, request.signal, stage.timeoutMs);
    } finally {
      await Promise.allSettled((plan?.datasources ?? []).map((planned) => planned.session.close()));
    }
  }

  /**
   * Connects and disconnects; resolves with the connect's latency, or rejects with FET-1041 (its
   * `extra.reason` says why). An abort of `signal` rejects with its reason.
   */
  async test(datasource: DatasourceInput, options: ProbeOptions & { readonly timeoutMs?: number } = {}): Promise<{ latencyMs: number }> {
    const resolved = await this.resolve(options.name ?? 'datasource', datasource);
    const outcome = await this.testDatasource(resolved, options.timeoutMs ?? this.options.testTimeoutMs, undefined, options.signal);
    if (!outcome.ok) throw connectionFailed(FetCode.ConnectionTestFailed, outcome.error);
    return { latencyMs: outcome.latencyMs };
  }

  /**
   * The tables and columns the login can read in `schemas` (every namespace when absent), read
   * through the schema cache when one is configured and `fresh` is not set. Fails with FET-1041
   * (cannot connect), FET-1042 (discovery failed) or FET-1043 (no answer within the deadline).
   */
  async discover(
    datasource: DatasourceInput,
    schemas?: readonly string[] | null,
    options: ProbeOptions & { readonly fresh?: boolean } = {},
  ): Promise<DiscoveredSchema> {
    const resolved = await this.resolve(options.name ?? 'datasource', datasource);
    const scope = schemas && schemas.length > 0 ? schemas : null;
    const cacheKey = options.fresh || !this.schemaCache ? undefined : schemaCacheKey(resolved.id, 0, scope);
    const snapshot = await this.discoverDatasource(resolved, scope, { cacheKey, signal: options.signal }).catch((error: unknown) => {
      throw options.signal?.aborted ? error : discoveryFailure(error);
    });
    return describeSchema(snapshot);
  }

  /** Closes the pooled sessions of datasource `id` at once (its connection was changed or deleted). */
  forgetSessions(id: string): Promise<void> {
    return this.sessions.forget(id);
  }

  /** Closes every pooled session; sessions closed afterwards are not pooled any more. */
  close(): Promise<void> {
    return this.sessions.closePool();
  }

  /** A connection URL or descriptor as the connectors take it (a `mongodb+srv` name looked up once). */
  async resolve(name: string, input: DatasourceInput): Promise<ResolvedDatasource> {
    if (typeof input !== 'string') return resolveDescriptor(name, input);
    const parsed = parseDatasourceUrl(input);
    return resolveDescriptor(name, parsed.srv ? await resolveMongoSrv(parsed.descriptor) : parsed.descriptor);
  }

  /** `test()` on a resolved datasource, with the failure as an outcome; `gate` may hold it for a slot. */
  testDatasource(datasource: ResolvedDatasource, timeoutMs: number, gate?: TestGate, signal?: AbortSignal): Promise<ConnectionTestResult> {
    return testConnection(this.sessions, datasource, timeoutMs, gate, signal);
  }

  /**
   * `discover()` on a resolved datasource within the engine's discovery deadline and catalog byte
   * budget, failures thrown raw (discoveryFailure maps them). With `cacheKey` and a cache,
   * cache-first; `gate` may hold a live discovery for a slot (a cache hit takes none).
   */
  async discoverDatasource(
    datasource: ResolvedDatasource,
    schemas: readonly string[] | null,
    options: { readonly cacheKey?: string; readonly signal?: AbortSignal; readonly gate?: TestGate } = {},
  ): Promise<SchemaSnapshot> {
    const cache = options.cacheKey === undefined ? undefined : this.schemaCache;
    const cached = await cache?.get(options.cacheKey as string);
    if (cached) return cached;
    // A discovery connects as a test does: a host that does not answer has the test's time, not an extraction's.
    const snapshot = await discoverSchema(
      this.sessions,
      datasource,
      schemas,
      {
        deadlineMs: this.options.discoveryTimeoutMs,
        connectTimeoutMs: this.options.testTimeoutMs,
        maxCatalogBytes: this.options.discoveryMaxBytes,
        gate: options.gate,
      },
      options.signal,
    );
    await cache?.set(options.cacheKey as string, snapshot, this.options.schemaCacheTtlSeconds);
    return snapshot;
  }

  private async resolveNamed(inputs: ExtractRequest['datasources'], names: readonly string[]): Promise<Map<string, ResolvedDatasource>> {
    const resolved = new Map<string, ResolvedDatasource>();
    for (const name of names) {
      if (Object.hasOwn(inputs, name)) resolved.set(name, await this.resolve(name, inputs[name]));
    }
    return resolved;
  }
}

/** An engine with the given options (limits, egress policy, logger, schema cache, tracer); see EngineOptions. */
export function createEngine(options: EngineOptions = {}): Engine {
  return new Engine(options);
}

/** The request's output with its defaults, or EngineOptionsError naming the field that is wrong. */
function outputOf(output: OutputOptions | undefined): ResultOutput {
  const requested = { format: output?.format, compression: output?.compression };
  const problems = outputProblems(Object.fromEntries(Object.entries(requested).filter(([, value]) => value !== undefined)));
  if (problems)
    throw new EngineOptionsError(
      Object.entries(problems)
        .map(([field, problem]) => `${field} ${problem}`)
        .join('; '),
      { fields: problems },
    );
  return resolveOutput(requested);
}

/** Marks handed in must be well formed, and only come with an incremental request. */
function checkMarks(marks: unknown, incremental: IncrementalRequest | undefined): void {
  if (marks === undefined) return;
  const problems = incremental === undefined ? { marks: 'marks come only with dataRequest.incremental' } : markProblems(marks, 'marks');
  const entries = Object.entries(problems);
  if (entries.length > 0)
    throw new EngineOptionsError(entries.map(([field, problem]) => `${field}: ${problem}`).join('; '), { fields: problems });
}

function sealingKeys(seal: NonNullable<OutputOptions['seal']>): SealingKeys {
  if ('masterKey' in seal) {
    try {
      const master = typeof seal.masterKey === 'string' ? decodeMasterKey(seal.masterKey, 'output.seal.masterKey') : seal.masterKey;
      if (master.length < 32) throw new Error('output.seal.masterKey: must be at least 32 bytes');
      return deriveResultKeys(master);
    } catch (error) {
      throw new EngineOptionsError((error as Error).message, { fields: { 'output.seal.masterKey': (error as Error).message } });
    }
  }
  return seal;
}

/** Why the extraction stopped, as its caller is told: its own deadline and an abort by the caller get their FET codes. */
function stopped(error: unknown, timeout: AbortSignal, callerSignal: AbortSignal | undefined, timeoutMs: number): unknown {
  if (timeout.aborted && !callerSignal?.aborted) {
    return new ExtractionError(FetCode.ExtractionTimeout, `extraction exceeded its timeout of ${timeoutMs} ms; nothing was stored`);
  }
  if (callerSignal?.aborted) {
    return new ExtractionError(FetCode.ExtractionCancelled, 'extraction cancelled; nothing was stored', { cause: callerSignal.reason });
  }
  return error;
}

function describeSchema(snapshot: SchemaSnapshot): DiscoveredSchema {
  const tables = [...snapshot.tables.values()]
    .sort((a, b) => compareKeys(a.key, b.key))
    .map((table) => ({
      key: table.key,
      schema: table.schema,
      name: table.name,
      columns: table.columns.map((column) => ({ name: column.name, type: column.dataType })),
      primaryKey: [...table.primaryKey],
    }));
  return { tables };
}
