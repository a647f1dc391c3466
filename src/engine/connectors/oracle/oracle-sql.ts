import type { ColumnInfo, TableReadRequest } from '../shared/engine-connector.js';
import { buildWhere } from './oracle-filter.js';
import { qualifiedName, quoteIdent } from './oracle-identifier.js';
import { isoFormat } from './oracle-temporal.js';
import { oracleColumnType } from './oracle-types.js';
import { OracleStatementBuilder, type SqlStatement } from './oracle-statement-builder.js';

/** A column Fetcher cannot read a value of (BFILE is a pointer to a file on the database host). */
export class UnsupportedColumnError extends Error {
  override readonly name = 'UnsupportedColumnError';
}

/**
 * Columns the server renders for us, under their own name:
 * - DATE/TIMESTAMP*: TO_CHAR with a fixed ISO format at the column's precision (exact, any time
 *   zone of the Node process, no NLS dependence; the driver would give a JS Date: milliseconds
 *   only, the stored offset lost);
 * - JSON: JSON_SERIALIZE to text, so numbers keep their digits (the driver's native decoding
 *   turns them into doubles).
 * Everything else is fetched as the driver reads it (see oracle-client.ts fetchTypeHandler).
 */
export function projection(column: ColumnInfo): string {
  const quoted = quoteIdent(column.name);
  const type = oracleColumnType(column);
  if (type === null) return quoted;
  switch (type.kind) {
    case 'date':
    case 'timestamp':
    case 'timestamp_tz':
    case 'timestamp_ltz':
      return `TO_CHAR(${quoted}, '${isoFormat(type, true)}') AS ${quoted}`;
    case 'json':
      return `JSON_SERIALIZE(${quoted} RETURNING CLOB) AS ${quoted}`;
    case 'bfile':
      throw new UnsupportedColumnError(`column "${column.name}" has type BFILE (a file on the database host), which cannot be extracted`);
    default:
      return quoted;
  }
}

/** The alias of the table in every statement, so ORDER BY reaches the column, not a TO_CHAR alias. */
const ALIAS = 't';

/**
 * `SELECT <columns> FROM "OWNER"."TABLE" t [WHERE …] [ORDER BY t.<primary key>]`, values bound as
 * `:n`. Ordering by the primary key makes the result stable and is what the result contract
 * promises; it names the table's columns through the alias because a bare name would resolve to
 * the select list first, i.e. to the text projection of a DATE key.
 */
export function buildSelect(request: TableReadRequest): SqlStatement {
  const { table, columns, filters } = request;
  // Oracle has no empty select list; the renderer ignores the value.
  const list = columns.length === 0 ? '1' : columns.map(projection).join(', ');
  const sql = new OracleStatementBuilder().append(`SELECT ${list} FROM ${qualifiedName(table)} ${ALIAS}`);
  if (filters !== undefined) buildWhere(filters, table.columns, sql);
  if (table.primaryKey.length > 0) sql.append(' ORDER BY ' + table.primaryKey.map((c) => `${ALIAS}.${quoteIdent(c)}`).join(', '));
  return sql.build();
}
