import { mysql2 } from './mysql-driver.js';
import type { FilterScalar } from '../../../request/data-request.js';
import type { ColumnInfo, TableReadRequest } from '../shared/engine-connector.js';
import { buildWhere } from './mysql-filter.js';
import { qualifiedName, quoteIdent } from './mysql-identifier.js';
import { kindOfColumn } from './mysql-types.js';
import { SqlBuilder } from '../sql/sql-builder.js';

export interface SqlStatement {
  /** SQL with `?` placeholders, for people and tests. */
  readonly text: string;
  readonly values: readonly FilterScalar[];
  /**
   * `text` cut at its placeholders (`text === fragments.join('?')`). Values are spliced in at
   * these cuts, never by searching the text for `?`, which a quoted identifier may contain.
   */
  readonly fragments: readonly string[];
}

/**
 * A placeholder as it stands in the builder's text: a NUL, which no MySQL identifier may contain
 * (U+0000 is the one character quoted names exclude), so build() cuts the text exactly at the
 * placeholders and never at a `?` inside a quoted identifier. Values are kept in the order their
 * placeholders were made, which is their order in the text: SQL is composed left to right.
 */
const CUT = '\u0000';

/** Accumulates SQL text and bound values; build() gives the text with `?` placeholders and its cuts. */
export class MySqlStatementBuilder extends SqlBuilder<FilterScalar> {
  constructor() {
    super(() => CUT);
  }

  build(): SqlStatement {
    const fragments = this.text.split(CUT);
    if (fragments.length !== this.values.length + 1) throw new Error('a MySQL statement holds a NUL outside its placeholders');
    return { text: fragments.join('?'), values: [...this.values], fragments };
  }
}

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
