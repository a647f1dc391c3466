import type { ColumnInfo, TableReadRequest } from '../engine-connector.js';
import { buildWhere } from './postgres-filter.js';
import { qualifiedName, quoteIdent } from './postgres-identifier.js';
import { PgOid, postgresColumnType } from './postgres-types.js';

export interface SqlStatement {
  readonly text: string;
  readonly values: unknown[];
}

/** money is read as numeric (its text carries a locale currency sign); the key stays the column name. */
function projection(column: ColumnInfo): string {
  const quoted = quoteIdent(column.name);
  const type = postgresColumnType(column);
  if (type === null) return quoted;
  if (type.typeOid === PgOid.money) return `${quoted}::numeric AS ${quoted}`;
  if (type.elementOid === PgOid.money) return `${quoted}::numeric[] AS ${quoted}`;
  return quoted;
}

/**
 * `SELECT <columns> FROM "schema"."table" [WHERE …] [ORDER BY <primary key>]`, values bound as
 * `$n`. Ordering by the primary key makes the result stable and is what SPEC §6 promises.
 */
export function buildSelect(request: TableReadRequest): SqlStatement {
  const { table, columns, filters } = request;
  let text = 'SELECT ' + columns.map(projection).join(', ') + ' FROM ' + qualifiedName(table);
  const values: unknown[] = [];
  if (filters !== undefined) {
    const where = buildWhere(filters, table.columns, values);
    if (where !== '') text += ' WHERE ' + where;
  }
  if (table.primaryKey.length > 0) text += ' ORDER BY ' + table.primaryKey.map(quoteIdent).join(', ');
  return { text, values };
}
