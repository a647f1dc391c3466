import type { RequestProblem } from './data-request.error.js';
import { MAX_LAG_SECONDS, MAX_STREAM_NAME_LENGTH, RANGE_OPERATORS } from './incremental-request.js';

type AddProblem = (detail: RequestProblem, path: string, message: string) => void;

const MEMBERS = new Set(['stream', 'cursors', 'lagSeconds', 'initial']);
// C0 and C1 controls, DEL, and the line and paragraph separators: a stream name shows in logs and URLs.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Shape checks of `dataRequest.incremental` (docs/incremental.md, "The request"): the stream name,
 * each cursor's datasource and table among `mappedFields`, the lag, the starting values, and no
 * filter of gt, gte or lte on a cursor column. Whether a cursor is a column of its table, and of a
 * kind a range can use, is known only once the schema is (checkCursors).
 */
export function validateIncremental(input: unknown, mappedFields: unknown, filters: unknown, add: AddProblem): void {
  if (input === undefined || input === null) return;
  const base = 'dataRequest.incremental';
  const bad = (path: string, message: string, detail: Partial<RequestProblem> = {}) =>
    add({ type: 'invalid_incremental', ...detail }, path, message);
  if (!isPlainObject(input)) return bad(base, 'incremental must be an object with stream and cursors');
  for (const member of Object.keys(input)) {
    if (!MEMBERS.has(member)) bad(`${base}.${member}`, `unknown member '${member}'; use stream, cursors, lagSeconds or initial`);
  }

  const { stream } = input;
  if (typeof stream !== 'string' || stream.trim() === '') bad(`${base}.stream`, 'stream must be a non-empty string');
  else if (stream.length > MAX_STREAM_NAME_LENGTH)
    bad(`${base}.stream`, `stream must be at most ${MAX_STREAM_NAME_LENGTH} characters, got ${stream.length}`);
  else if (CONTROL.test(stream)) bad(`${base}.stream`, 'stream must not contain control characters');
  else if (stream !== stream.trim()) bad(`${base}.stream`, 'stream must not begin or end with whitespace');

  const mapped = isPlainObject(mappedFields) ? mappedFields : {};
  const cursors = input.cursors;
  if (!isPlainObject(cursors) || Object.keys(cursors).length === 0) {
    bad(`${base}.cursors`, 'cursors must map at least one datasource to its tables and their cursor columns');
  } else {
    for (const [configName, tables] of Object.entries(cursors)) {
      const path = `${base}.cursors.${configName}`;
      const mappedTables = Object.hasOwn(mapped, configName) ? mapped[configName] : undefined;
      if (!isPlainObject(mappedTables)) {
        bad(path, `datasource '${configName}' is not in mappedFields`, { datasource: configName });
        continue;
      }
      if (!isPlainObject(tables) || Object.keys(tables).length === 0) {
        bad(path, `cursors of '${configName}' must map at least one table to its cursor column`, { datasource: configName });
        continue;
      }
      for (const [table, column] of Object.entries(tables)) {
        const at = { datasource: configName, table };
        if (!Object.hasOwn(mappedTables, table)) bad(`${path}.${table}`, `table '${configName}.${table}' is not in mappedFields`, at);
        else if (typeof column !== 'string' || column.trim() === '') bad(`${path}.${table}`, 'a cursor must name one column', at);
        else if (column.split('.').some((part) => part.toLowerCase() === '__proto__'))
          bad(`${path}.${table}`, `'${column}' cannot be used as a name: '__proto__' is refused`, at);
        else checkCursorFilter(filters, configName, table, column, add);
      }
    }
  }

  const lag = input.lagSeconds;
  if (lag !== undefined && (typeof lag !== 'number' || !Number.isInteger(lag) || lag < 1 || lag > MAX_LAG_SECONDS)) {
    bad(`${base}.lagSeconds`, `lagSeconds must be an integer from 1 to ${MAX_LAG_SECONDS}`);
  }
  checkInitial(input.initial, isPlainObject(cursors) ? cursors : {}, bad);
}

function checkInitial(
  initial: unknown,
  cursors: Record<string, unknown>,
  bad: (path: string, message: string, detail?: Partial<RequestProblem>) => void,
): void {
  if (initial === undefined) return;
  const base = 'dataRequest.incremental.initial';
  if (!isPlainObject(initial)) return bad(base, 'initial must map datasources to tables and their starting values');
  for (const [configName, tables] of Object.entries(initial)) {
    const cursorTables = Object.hasOwn(cursors, configName) ? cursors[configName] : undefined;
    if (!isPlainObject(tables)) {
      bad(`${base}.${configName}`, `initial of '${configName}' must map tables to starting values`, { datasource: configName });
      continue;
    }
    for (const [table, value] of Object.entries(tables)) {
      const at = { datasource: configName, table };
      const path = `${base}.${configName}.${table}`;
      if (!isPlainObject(cursorTables) || !Object.hasOwn(cursorTables, table))
        bad(path, `table '${configName}.${table}' has no cursor`, at);
      else if (!(typeof value === 'string' && value.trim() !== '') && !(typeof value === 'number' && Number.isFinite(value)))
        bad(path, 'a starting value is a non-empty string or a finite number', at);
    }
  }
}

/** A range is Fetcher's own: a filter of gt, gte or lte on the cursor would contradict it. */
function checkCursorFilter(filters: unknown, configName: string, table: string, column: string, add: AddProblem): void {
  const conditions = isPlainObject(filters) && Object.hasOwn(filters, configName) ? filters[configName] : undefined;
  const fields = isPlainObject(conditions) && Object.hasOwn(conditions, table) ? conditions[table] : undefined;
  const condition = isPlainObject(fields) && Object.hasOwn(fields, column) ? fields[column] : undefined;
  if (!isPlainObject(condition)) return;
  for (const operator of RANGE_OPERATORS) {
    if (!Object.hasOwn(condition, operator)) continue;
    add(
      { type: 'invalid_incremental', datasource: configName, table, field: column, operator },
      `dataRequest.filters.${configName}.${table}.${column}.${operator}`,
      `'${column}' is the cursor of '${configName}.${table}': its range is the stream's, so it takes no '${operator}' filter (use incremental.initial)`,
    );
  }
}
