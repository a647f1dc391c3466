import { Injectable } from '@nestjs/common';
import { ConnectionRepository } from '../datasource/connection.repository.js';
import { SchemaService } from '../datasource/schema/schema.service.js';
import type { ServiceDatasource } from '../datasource/service-datasource.js';
import { Engine } from '../engine/engine.js';
import { FetCode } from '../engine/errors/fet-code.js';
import type { ErrorDetail } from '../engine/errors/fetcher-error.js';
import type { CursorProblem } from '../engine/incremental/cursor-plan.js';
import { compareKeys } from '../engine/planner/mapped-tables.js';
import { cursorsOf } from '../engine/planner/planned-cursors.js';
import { collectRequested, matchRequested, type RequestedDatasource } from '../engine/planner/requested-schema.js';
import { parseTableReference } from '../engine/planner/table-reference.js';
import type { Filters, MappedFields } from '../engine/request/data-request.js';
import type { CursorMark, IncrementalRequest, StreamMarks } from '../engine/request/incremental-request.js';
import { StreamRepository } from '../stream/stream.repository.js';
import type { JobTableRange } from './job.entity.js';
import { JobError } from './job.error.js';

/**
 * What a job of a stream needs at submission besides a plain job's checks (docs/incremental.md):
 * the marks it starts from, and its cursors checked against the schemas as planning will check
 * them, so that a cursor that cannot be one is refused now rather than failing the job later.
 */
@Injectable()
export class IncrementalSubmission {
  constructor(
    private readonly engine: Engine,
    private readonly schemas: SchemaService,
    private readonly connections: ConnectionRepository,
    private readonly streams: StreamRepository,
  ) {}

  /**
   * The stream's committed marks of the request's cursor tables, each under its table's result key
   * (the datasource's default schema and name folding decide it, as in the result): what the job
   * starts above, what its hash includes, and what its commit must still find.
   */
  async startingMarks(incremental: IncrementalRequest, product: string, datasources: readonly ServiceDatasource[]): Promise<StreamMarks> {
    const stream = await this.streams.find(product, incremental.stream);
    const from: Record<string, Record<string, CursorMark>> = {};
    if (!stream) return from;
    const rules = this.engine.cursorRules;
    for (const datasource of datasources) {
      const cursors = Object.hasOwn(incremental.cursors, datasource.configName) ? incremental.cursors[datasource.configName] : {};
      const held = Object.hasOwn(stream.marks, datasource.configName) ? stream.marks[datasource.configName] : {};
      const defaultSchema = rules.defaultSchema(datasource);
      const canonical = rules.canonicalName(datasource);
      for (const requested of Object.keys(cursors)) {
        const { key } = parseTableReference(requested, defaultSchema, canonical);
        if (Object.hasOwn(held, key)) (from[datasource.configName] ??= {})[key] = held[key];
      }
    }
    return from;
  }

  /**
   * Discovers the requested tables (cache-first, as validate-schema does) and checks each cursor
   * against its table: 400 FET-0401 naming every cursor that cannot be one (no such column, a type
   * no range can use, a lag on a cursor that is no time, a mark on another column), then 422
   * FET-1060 listing every unknown table, field and filter field, as validate-schema reports them.
   * A datasource that cannot be discovered now is left to planning, which checks the same again.
   * Returns the ranges as planned, for the job to show until it has read them.
   */
  async checkCursors(
    request: { readonly mappedFields: MappedFields; readonly filters?: Filters | null },
    incremental: IncrementalRequest,
    from: StreamMarks,
    datasources: readonly ServiceDatasource[],
  ): Promise<Record<string, Record<string, JobTableRange>>> {
    const rules = this.engine.cursorRules;
    const byName = new Map(datasources.map((datasource) => [datasource.configName, datasource]));
    const requested = collectRequested({ mappedFields: request.mappedFields, filters: request.filters ?? null }, byName, rules);
    const versions = await this.versions(requested);
    const matches = await matchRequested(requested, requested.length, (datasource, schemas) =>
      this.schemas.discoverCached(datasource, versions.get(datasource.configName) ?? 0, schemas),
    );
    const matched = matches.flatMap((match) => (match.status === 'matched' ? [match] : []));
    const planned = matched.map((match) => ({ configName: match.configName, ...cursorsOf(match, incremental, from, rules) }));
    const problems = planned.flatMap((datasource) => datasource.problems);
    if (problems.length > 0) throw cursorsRefused(problems);
    const details = matched.flatMap((match) => match.details);
    if (details.length > 0) throw schemaMismatch(details);
    const ranges: Record<string, Record<string, JobTableRange>> = {};
    for (const { configName, tables } of planned) {
      for (const { table, range } of tables) {
        if (!range) continue;
        (ranges[configName] ??= {})[table.key] = {
          column: range.column.name,
          type: range.kind,
          from: range.after ?? range.from ?? null,
          fromInclusive: range.after === undefined && range.from !== undefined,
          to: null,
          rows: null,
        };
      }
    }
    return ranges;
  }

  /** The updatedAt of each stored connection, which versions its cached schema (as validate-schema keys it). */
  private async versions(requested: readonly RequestedDatasource[]): Promise<Map<string, number>> {
    const stored = requested.flatMap(({ configName, datasource }) =>
      datasource && !datasource.internal ? [{ configName, id: datasource.id }] : [],
    );
    const records = new Map((await this.connections.findByIds(stored.map(({ id }) => id))).map((record) => [record.id, record]));
    return new Map(stored.map(({ configName, id }) => [configName, records.get(id)?.updatedAt.getTime() ?? 0]));
  }
}

/** The request language's own refusal: each cursor by the path of the member that names it. */
function cursorsRefused(problems: readonly CursorProblem[]): JobError {
  const message =
    problems.length === 1
      ? problems[0].detail.message
      : `${problems.length} problems in dataRequest: ${problems.map((problem) => problem.detail.message).join('; ')}`;
  return new JobError(FetCode.InvalidDataRequest, message, {
    fields: Object.fromEntries(problems.map((problem) => [problem.path, problem.detail.message])),
    details: problems.map((problem) => problem.detail),
  });
}

function schemaMismatch(details: readonly ErrorDetail[]): JobError {
  const sorted = [...details].sort((a, b) =>
    compareKeys(`${a.datasource}\0${a.table ?? ''}\0${a.field ?? ''}`, `${b.datasource}\0${b.table ?? ''}\0${b.field ?? ''}`),
  );
  return new JobError(
    FetCode.SchemaValidationFailed,
    `Schema validation found ${sorted.length} inconsistenc${sorted.length === 1 ? 'y' : 'ies'}.`,
    { details: sorted },
  );
}
