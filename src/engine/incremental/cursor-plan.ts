import type { ColumnInfo, TableReadRequest } from '../connectors/shared/engine-connector.js';
import type { ErrorDetail } from '../errors/fetcher-error.js';
import type { CursorMark, IncrementalRequest } from '../request/incremental-request.js';
import { cursorValueProblem, TIME_CURSOR_KINDS, type CursorKind, type CursorRange } from './cursor-range.js';

/** A cursor that cannot be used, with the JSON path of the member that names it. */
export interface CursorProblem {
  readonly path: string;
  readonly detail: ErrorDetail & { readonly message: string };
}

export interface DatasourceCursors {
  readonly configName: string;
  /** The tables of this datasource that exist, as planning matched them. */
  readonly tables: readonly TableReadRequest[];
  /** Result key of a table as `mappedFields` spells it (its engine's default schema and name folding). */
  readonly keyOf: (requested: string) => string;
  /** The engine's name folding of a column name. */
  readonly canonical: (name: string) => string;
  /** Absent: the engine has no incremental reads. */
  readonly cursorKind?: (column: ColumnInfo) => CursorKind | null;
  /** The stream's committed marks of this datasource, by result key. */
  readonly marks?: Readonly<Record<string, CursorMark>>;
}

/**
 * Gives each cursor table of one datasource its range (docs/incremental.md), or reports why its
 * cursor cannot be one: no such column, a kind no range can use, a lag on a cursor that is not a
 * time, or a mark the stream holds on another column or type. Tables without a cursor keep their
 * request as it is; tables that do not exist were reported by planning already.
 */
export function planCursors(
  incremental: IncrementalRequest,
  datasource: DatasourceCursors,
): { readonly tables: TableReadRequest[]; readonly problems: CursorProblem[] } {
  const { configName } = datasource;
  const cursors = Object.hasOwn(incremental.cursors, configName) ? incremental.cursors[configName] : {};
  const initial = incremental.initial && Object.hasOwn(incremental.initial, configName) ? incremental.initial[configName] : {};
  const byKey = new Map<string, { requested: string; column: string }>();
  for (const [requested, column] of Object.entries(cursors)) byKey.set(datasource.keyOf(requested), { requested, column });

  const problems: CursorProblem[] = [];
  const tables = datasource.tables.map((request) => {
    const cursor = byKey.get(request.table.key);
    if (!cursor) return request;
    const path = `dataRequest.incremental.cursors.${configName}.${cursor.requested}`;
    const at = { datasource: configName, table: request.table.key, field: cursor.column };
    const problem = (type: string, message: string) => problems.push({ path, detail: { type, ...at, message } });
    if (!datasource.cursorKind) {
      problem('cursor_unsupported', `this engine has no incremental reads`);
      return request;
    }
    const name = datasource.canonical(cursor.column);
    const column = request.table.columns.find((candidate) => candidate.name === name);
    if (!column) {
      problem('cursor_not_found', `no column '${cursor.column}' in '${configName}.${request.table.key}' to use as its cursor`);
      return request;
    }
    const kind = datasource.cursorKind(column);
    if (kind === null) {
      problem(
        'cursor_type_refused',
        `'${cursor.column}' (${column.dataType}) cannot be a cursor: use an integer, decimal, date or timestamp column`,
      );
      return request;
    }
    if (incremental.lagSeconds !== undefined && !TIME_CURSOR_KINDS.has(kind)) {
      problems.push({
        path: 'dataRequest.incremental.lagSeconds',
        detail: {
          type: 'lag_not_allowed',
          ...at,
          message: `lagSeconds applies to date and timestamp cursors; '${cursor.column}' is ${kind}`,
        },
      });
      return request;
    }
    const mark = datasource.marks?.[request.table.key];
    if (mark && (mark.column !== column.name || mark.type !== kind)) {
      problem(
        'cursor_mismatch',
        `stream '${incremental.stream}' follows '${configName}.${request.table.key}' by '${mark.column}' (${mark.type}); reset the stream to change its cursor`,
      );
      return request;
    }
    const start = Object.hasOwn(initial, cursor.requested) ? String(initial[cursor.requested]) : undefined;
    const startProblem = start === undefined ? undefined : cursorValueProblem(kind, start);
    if (startProblem) {
      problems.push({
        path: `dataRequest.incremental.initial.${configName}.${cursor.requested}`,
        detail: { type: 'invalid_initial', ...at, message: `${startProblem} (the ${kind} cursor '${cursor.column}')` },
      });
      return request;
    }
    const range: CursorRange = {
      column,
      kind,
      ...(mark ? { after: mark.value } : start !== undefined ? { from: start } : {}),
      ...(incremental.lagSeconds !== undefined ? { lagSeconds: incremental.lagSeconds } : {}),
    };
    return { ...request, range };
  });
  return { tables, problems };
}
