import type { CursorMark, IncrementalOutcome, StreamMarks } from '../engine/request/incremental-request.js';

/** What the completion of a job of a stream commits (docs/incremental.md, "Marks"). */
export interface MarksCommit {
  readonly productName: string;
  readonly stream: string;
  readonly jobId: string;
  /** The marks the job started from (`jobs.incremental.from`): the stream must still hold exactly these. */
  readonly from: StreamMarks;
  /** What the job read: its cursor tables, and the marks that follow. */
  readonly outcome: Pick<IncrementalOutcome, 'tables' | 'marks'>;
}

/**
 * The compare half of the commit's compare-and-set: the first of the job's cursor tables
 * (`configName.tableKey`) whose mark in `current` is not the one the job started from (a table
 * that had none must still have none), or undefined when the stream still stands where the job
 * found it. `current` undefined: the stream has no row (never committed, or reset).
 */
export function movedTable(current: StreamMarks | undefined, commit: MarksCommit): string | undefined {
  for (const [configName, table] of cursorTables(commit)) {
    if (!sameMark(markAt(current, configName, table), markAt(commit.from, configName, table))) return `${configName}.${table}`;
  }
  return undefined;
}

/** Every cursor table of the job: those it started with a mark, and those it read a range of. */
function cursorTables(commit: MarksCommit): Array<readonly [string, string]> {
  const seen = new Map<string, readonly [string, string]>();
  for (const marks of [commit.from, commit.outcome.tables]) {
    for (const [configName, tables] of Object.entries(marks)) {
      for (const table of Object.keys(tables)) seen.set(JSON.stringify([configName, table]), [configName, table]);
    }
  }
  return [...seen.values()];
}

// Own members only: a table may be named `constructor`.
function markAt(marks: StreamMarks | undefined, configName: string, table: string): CursorMark | undefined {
  const tables = marks && Object.hasOwn(marks, configName) ? marks[configName] : undefined;
  return tables && Object.hasOwn(tables, table) ? tables[table] : undefined;
}

function sameMark(a: CursorMark | undefined, b: CursorMark | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.column === b.column && a.type === b.type && a.value === b.value;
}
