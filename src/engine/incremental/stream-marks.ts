import type { CursorMark, StreamMarks } from '../request/incremental-request.js';
import { CURSOR_KINDS, cursorValueProblem, type CursorKind } from './cursor-range.js';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks marks handed in from outside (a state file, a library caller, a PUT of the service):
 * `marks[configName][tableKey] = {column, type, value}`. Returns every problem by its path under
 * `base`; none when they are well formed.
 */
export function markProblems(marks: unknown, base: string): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!isPlainObject(marks)) return { [base]: 'marks must map datasources to tables and their marks' };
  for (const [configName, tables] of Object.entries(marks)) {
    if (!isPlainObject(tables)) {
      problems[`${base}.${configName}`] = `marks of '${configName}' must map tables to marks`;
      continue;
    }
    for (const [table, mark] of Object.entries(tables)) {
      const problem = markProblem(mark);
      if (problem) problems[`${base}.${configName}.${table}`] = problem;
    }
  }
  return problems;
}

function markProblem(mark: unknown): string | undefined {
  if (!isPlainObject(mark)) return 'a mark is {column, type, value}';
  const unknown = Object.keys(mark).filter((member) => !['column', 'type', 'value'].includes(member));
  if (unknown.length > 0) return `unknown member '${unknown[0]}' of a mark; use column, type and value`;
  if (typeof mark.column !== 'string' || mark.column.trim() === '') return 'a mark names its column';
  if (typeof mark.type !== 'string' || !(CURSOR_KINDS as readonly string[]).includes(mark.type))
    return `a mark's type is one of ${CURSOR_KINDS.join(', ')}`;
  if (typeof mark.value !== 'string' || mark.value.trim() === '') return "a mark's value is a non-empty string";
  return cursorValueProblem(mark.type as CursorKind, mark.value);
}

/** Marks of `next` replace those of `base` table by table; the rest of `base` stays. */
export function mergeMarks(base: StreamMarks, next: StreamMarks): StreamMarks {
  const merged: Record<string, Record<string, CursorMark>> = {};
  for (const [configName, tables] of Object.entries(base)) merged[configName] = { ...tables };
  for (const [configName, tables] of Object.entries(next)) merged[configName] = { ...merged[configName], ...tables };
  return merged;
}

/** Whether a kind name is one of the cursor kinds. */
export const isCursorKind = (value: unknown): value is CursorKind =>
  typeof value === 'string' && (CURSOR_KINDS as readonly string[]).includes(value);
