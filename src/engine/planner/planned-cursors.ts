import { planCursors, type CursorProblem } from '../incremental/cursor-plan.js';
import type { IncrementalRequest, StreamMarks } from '../request/incremental-request.js';
import type { DatasourceSessions } from '../sessions/datasource-sessions.js';
import type { DatasourceMatch } from './requested-schema.js';
import { parseTableReference } from './table-reference.js';

type CursorRules = Pick<DatasourceSessions, 'defaultSchema' | 'canonicalName' | 'cursorKinds'>;

/**
 * The matched datasources with each cursor table's range, and every cursor that cannot be one added
 * to its datasource's details (planning then fails with FET-1060 listing them all).
 */
export function applyCursors(
  matches: readonly DatasourceMatch[],
  incremental: IncrementalRequest,
  marks: StreamMarks | undefined,
  rules: CursorRules,
): DatasourceMatch[] {
  return matches.map((match) => {
    if (match.status !== 'matched') return match;
    const { tables, problems } = cursorsOf(match, incremental, marks, rules);
    return { ...match, tables, details: [...match.details, ...problems.map((problem) => problem.detail)] };
  });
}

/** planCursors for one matched datasource, with the engine's name rules. */
export function cursorsOf(
  match: Extract<DatasourceMatch, { status: 'matched' }>,
  incremental: IncrementalRequest,
  marks: StreamMarks | undefined,
  rules: CursorRules,
): ReturnType<typeof planCursors> & { readonly problems: CursorProblem[] } {
  const defaultSchema = rules.defaultSchema(match.datasource);
  const canonical = rules.canonicalName(match.datasource);
  return planCursors(incremental, {
    configName: match.configName,
    tables: match.tables,
    keyOf: (requested) => parseTableReference(requested, defaultSchema, canonical).key,
    canonical,
    cursorKind: rules.cursorKinds(match.datasource),
    marks: marks && Object.hasOwn(marks, match.configName) ? marks[match.configName] : undefined,
  });
}
