import type { ColumnInfo, TableReadRequest } from '../shared/engine-connector.js';
import type { CursorKind, CursorRange } from '../../incremental/cursor-range.js';
import type { SqlStatement } from './postgres-sql.js';
import { qualifiedName, quoteIdent } from './postgres-identifier.js';
import { PgOid, postgresColumnType } from './postgres-types.js';

const KINDS: ReadonlyMap<number, CursorKind> = new Map([
  [PgOid.int2, 'integer'],
  [PgOid.int4, 'integer'],
  [PgOid.int8, 'integer'],
  [PgOid.numeric, 'decimal'],
  [PgOid.date, 'date'],
  [PgOid.timestamp, 'timestamp'],
  [PgOid.timestamptz, 'timestamptz'],
]);

/** Integers, numeric, date and timestamps (domains over them too); arrays, text, floats and the rest cannot be cursors. */
export function postgresCursorKind(column: ColumnInfo): CursorKind | null {
  const type = postgresColumnType(column);
  if (type === null || type.elementOid !== undefined) return null;
  return KINDS.get(type.typeOid) ?? null;
}

/**
 * The upper bound of a range: the column's maximum over the whole table (no filters, so an index
 * on the cursor answers it from its last entry), minus the lag for time cursors, and NULL unless
 * it lies above the lower bound. Compared by the server in the column's own type; a date keeps
 * being a date, so a lag on one rounds up to whole days.
 */
export function buildBound(request: TableReadRequest): SqlStatement {
  const range = request.range as CursorRange;
  const column = quoteIdent(range.column.name);
  const cast = postgresColumnType(range.column)?.castType ?? 'text';
  const values: unknown[] = [];
  const bind = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  let maximum = `max(${column})`;
  if (range.lagSeconds !== undefined) {
    maximum = `(${maximum} - make_interval(secs => ${bind(range.lagSeconds)}::double precision))`;
    if (range.kind === 'date') maximum += '::date';
  }
  let text = `SELECT ${maximum} AS bound FROM ${qualifiedName(request.table)}`;
  if (range.after !== undefined) text = `SELECT b.bound FROM (${text}) AS b WHERE b.bound > ${bind(range.after)}::${cast}`;
  else if (range.from !== undefined) text = `SELECT b.bound FROM (${text}) AS b WHERE b.bound >= ${bind(range.from)}::${cast}`;
  return { text, values };
}
