import pg from 'pg';
import type { ColumnInfo, TableReadRequest } from '../shared/engine-connector.js';
import { bindParameters, buildWhere, type SqlParameters } from './postgres-filter.js';
import { qualifiedName, quoteIdent } from './postgres-identifier.js';
import { PgOid, postgresColumnType } from './postgres-types.js';

/** pg's own conversion of a bind value to text (arrays to array literals), exported but not typed. */
const prepareValue = (value: unknown): string =>
  (pg as unknown as { utils: { prepareValue(v: unknown): string } }).utils.prepareValue(value);

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
 * `SELECT <columns> FROM "schema"."table" [WHERE …] [ORDER BY <primary key>]`, the filter values
 * read through `params`. Ordering by the primary key makes the result stable and is what the
 * result contract promises.
 */
function selectText(request: TableReadRequest, params: SqlParameters): string {
  const { table, columns, filters } = request;
  let text = 'SELECT ' + columns.map(projection).join(', ') + ' FROM ' + qualifiedName(table);
  if (filters !== undefined) {
    const where = buildWhere(filters, table.columns, params);
    if (where !== '') text += ' WHERE ' + where;
  }
  if (table.primaryKey.length > 0) text += ' ORDER BY ' + table.primaryKey.map(quoteIdent).join(', ');
  return text;
}

/** The SELECT with its values bound as `$n`, for the cursor path. */
export function buildSelect(request: TableReadRequest): SqlStatement {
  const values: unknown[] = [];
  const text = selectText(request, bindParameters(values));
  return { text, values };
}

export interface CopyStatement {
  /**
   * Run first, in the COPY's pipeline (one implicit transaction, see CopyOutStream): binds every
   * filter value (as `$n`, never as SQL text) into a transaction-local setting the COPY reads back.
   * Null when the read has no values.
   */
  readonly settings: SqlStatement | null;
  readonly copy: string;
}

/** A setting name of our own: custom (dotted) names need no declaration and no privilege. */
const settingName = (n: number): string => `fetcher.p${n}`;

/**
 * `COPY (<the SELECT>) TO STDOUT`. COPY takes no bind parameters, so each value is bound as
 * `$N::type` in `SELECT set_config('fetcher.pN', ($N::type)::text, true)`, and the query reads it
 * back as `current_setting('fetcher.pN')::type`: the type's input function reads the same text as
 * on the cursor path (arrays as PostgreSQL array text, as pg sends them), and a value the type
 * refuses fails up front and in the same order, even where the query would never look at it. A
 * null is the constant NULL. Null when a value has no cast (a column of unknown type): it would
 * need the server's inference from a bind parameter, which only the cursor path has.
 */
export function buildCopy(request: TableReadRequest): CopyStatement | null {
  const values: string[] = [];
  // One column per value, so every call is evaluated; IS NULL keeps the answer a few bytes.
  const calls: string[] = [];
  let untyped = false;
  const params: SqlParameters = {
    add: (value, cast) => {
      if (cast === '') untyped = true;
      if (value === null || value === undefined) return 'NULL' + cast;
      values.push(prepareValue(value));
      const n = values.length;
      calls.push(`pg_catalog.set_config('${settingName(n)}', ($${n}${cast})::text, true) IS NULL`);
      return `pg_catalog.current_setting('${settingName(n)}')${cast}`;
    },
  };
  const copy = `COPY (${selectText(request, params)}) TO STDOUT`;
  if (untyped) return null;
  return { settings: values.length === 0 ? null : { text: 'SELECT ' + calls.join(', '), values }, copy };
}
