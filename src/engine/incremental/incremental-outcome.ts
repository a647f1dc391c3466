import type { ExtractionStats } from '../executor/extraction-executor.js';
import type { ExtractionPlan } from '../executor/extraction-plan.js';
import type { CursorMark, IncrementalOutcome, IncrementalRequest, TableRange } from '../request/incremental-request.js';

/**
 * What each range of a finished extraction covered, and the marks that follow from it: a table's
 * new mark is its read's upper bound, or its old mark when nothing lay above it.
 */
export function incrementalOutcome(incremental: IncrementalRequest, plan: ExtractionPlan, stats: ExtractionStats): IncrementalOutcome {
  const tables: Record<string, Record<string, TableRange>> = {};
  const marks: Record<string, Record<string, CursorMark>> = {};
  for (const datasource of plan.datasources) {
    for (const request of datasource.tables) {
      const range = request.range;
      if (!range) continue;
      const { configName } = datasource;
      const key = request.table.key;
      const upper = stats.upperBounds[configName]?.[key] ?? null;
      const to = upper ?? range.after ?? null;
      (tables[configName] ??= {})[key] = {
        column: range.column.name,
        type: range.kind,
        from: range.after ?? range.from ?? null,
        fromInclusive: range.after === undefined && range.from !== undefined,
        to,
        rows: stats.rowCounts[configName]?.[key] ?? 0,
      };
      if (to !== null) (marks[configName] ??= {})[key] = { column: range.column.name, type: range.kind, value: to };
    }
  }
  return { stream: incremental.stream, tables, marks };
}
