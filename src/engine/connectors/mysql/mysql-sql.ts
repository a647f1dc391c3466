import { mysql2 } from './mysql-driver.js';
import type { ColumnInfo, TableReadRequest } from '../shared/engine-connector.js';
import { buildWhere } from './mysql-filter.js';
import { qualifiedName, quoteIdent } from './mysql-identifier.js';
import { kindOfColumn } from './mysql-types.js';
import { MySqlStatementBuilder, type SqlStatement } from './mysql-statement-builder.js';

/**
 * The statement as sent: the text protocol has no server-side parameters, so values are
 * escaped by mysql2 (quotes and backslashes escaped, numbers and booleans as literals, null as
 * NULL). The session clears NO_BACKSLASH_ESCAPES so that escaping is the server's reading too.
 */
export function renderSql(statement: SqlStatement): string {
  const { fragments, values } = statement;
  let sql = fragments[0];
  for (let i = 0; i < values.length; i++) sql += mysql2().escape(values[i]) + fragments[i + 1];
  return sql;
}

/**
 * Columns whose wire form would lose fidelity are read as server text under their own name:
 * DOUBLE as its shortest round-trip text (mysql2's own float parsing can be off by one unit in
 * the last place), FLOAT widened to DOUBLE first (the server prints FLOAT with 6 digits, so
 * 1234567 would read as 1234570), spatial values as WKT instead of a binary blob.
 */
function projection(column: ColumnInfo): string {
  const quoted = quoteIdent(column.name);
  switch (kindOfColumn(column)) {
    case 'double':
      return `CAST(${quoted} AS CHAR) AS ${quoted}`;
    case 'float':
      return `CAST(${quoted} + 0e0 AS CHAR) AS ${quoted}`;
    case 'spatial':
      return `ST_AsText(${quoted}) AS ${quoted}`;
    default:
      return quoted;
  }
}

/**
 * `SELECT <columns> FROM `db`.`table` [WHERE …] [ORDER BY <primary key>]`, values as `?`.
 * ORDER BY names the table's columns fully qualified: a bare name would resolve to the
 * select-list alias first, i.e. to the text projection of a DOUBLE key.
 */
export function buildSelect(request: TableReadRequest): SqlStatement {
  const { table, columns, filters } = request;
  const from = qualifiedName(table);
  // MySQL has no empty select list; the renderer ignores the value.
  const list = columns.length === 0 ? '1' : columns.map(projection).join(', ');
  const sql = new MySqlStatementBuilder().append(`SELECT ${list} FROM ${from}`);
  if (filters !== undefined) buildWhere(filters, table.columns, sql);
  if (table.primaryKey.length > 0) sql.append(' ORDER BY ' + table.primaryKey.map((c) => `${from}.${quoteIdent(c)}`).join(', '));
  return sql.build();
}
