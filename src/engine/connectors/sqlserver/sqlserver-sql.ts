import type { ColumnInfo, TableReadRequest } from '../shared/engine-connector.js';
import { readExpression } from './sqlserver-expressions.js';
import { buildWhere } from './sqlserver-filter.js';
import type { SqlParam } from './sqlserver-parameters.js';
import { qualifiedName, quoteIdent } from './sqlserver-identifier.js';
import { kindOfColumn } from './sqlserver-types.js';

export interface SqlStatement {
  /** T-SQL with `@p1…` placeholders; run through sp_executesql, never with values spliced in. */
  readonly text: string;
  readonly params: readonly SqlParam[];
}

/**
 * The table's alias in row reads. ORDER BY resolves a bare name to a select-list alias first,
 * which for a converted column is its text (`'10' < '9'`); qualified names reach the column.
 */
const SOURCE = '[src]';

/** One projected column: as read (sqlserver-expressions.ts), under its own name. */
export function projection(column: ColumnInfo): string {
  const quoted = quoteIdent(column.name);
  const read = readExpression(quoted, kindOfColumn(column));
  return read === quoted ? quoted : `${read} AS ${quoted}`;
}

/**
 * `SELECT <columns> FROM [schema].[table] AS [src] [WHERE …] [ORDER BY <primary key>]`, values
 * as typed `@pN` parameters. Ordering by the primary key makes the result stable and is what
 * docs/value-mapping.md, "The result document" promises.
 */
export function buildSelect(request: TableReadRequest): SqlStatement {
  const { table, columns, filters } = request;
  // SQL Server has no empty select list; the renderer ignores the value.
  const list = columns.length === 0 ? '1' : columns.map(projection).join(', ');
  let text = `SELECT ${list} FROM ${qualifiedName(table)} AS ${SOURCE}`;
  const params: SqlParam[] = [];
  if (filters !== undefined) {
    const where = buildWhere(filters, table.columns, params);
    if (where !== '') text += ' WHERE ' + where;
  }
  if (table.primaryKey.length > 0) text += ' ORDER BY ' + table.primaryKey.map((c) => `${SOURCE}.${quoteIdent(c)}`).join(', ');
  return { text, params };
}
