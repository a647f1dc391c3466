import type { FilterCondition, FilterScalar } from '../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { readBooleanText } from '../sql/boolean-text.js';
import { SqlColumnFilter } from '../sql/sql-column-filter.js';
import { buildSqlWhere } from '../sql/where-builder.js';
import { quoteIdent } from './mysql-identifier.js';
import type { MySqlStatementBuilder } from './mysql-statement-builder.js';
import { mysqlColumnType, type MySqlValueKind } from './mysql-types.js';

const TEXT_KINDS: ReadonlySet<MySqlValueKind> = new Set(['text', 'json-checked']);

/** `2024-01-15T10:20:30.5+02:00` and friends: date, time, optional fraction, zone. */
const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** A zoned timestamp string as the session (UTC) reads it, for a TIMESTAMP column; verbatim otherwise. */
export function temporalValue(value: FilterScalar, kind: MySqlValueKind | null): FilterScalar {
  if (typeof value !== 'string' || (kind !== 'timestamp' && kind !== 'datetime' && kind !== 'date')) return value;
  const m = ISO_WITH_ZONE.exec(value.trim());
  if (m === null) return value;
  const [, y, mo, d, hh, mm, ss = '00', fraction = '', zone] = m;
  if (kind !== 'timestamp' || zone.toUpperCase() === 'Z') return `${y}-${mo}-${d} ${hh}:${mm}:${ss}${fraction}`;
  const digits = zone.slice(1).replace(':', '');
  const offsetMinutes = (zone[0] === '-' ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0'));
  const at = new Date(0);
  at.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  at.setUTCHours(Number(hh), Number(mm) - offsetMinutes, Number(ss), 0);
  const iso = at.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction}`;
}

/**
 * Filters → one WHERE clause (sql/where-builder.ts), with the semantics every SQL engine shares
 * (sql/sql-column-filter.ts).
 *
 * Values are made to compare as the column's type, as PostgreSQL's `$n::type` does:
 * - date/time and numeric columns: the value is `CAST(? AS <type>)` (see MySqlColumnType.castType);
 *   an ISO offset on a TIMESTAMP value is converted to UTC (the session time zone), and dropped
 *   for DATE/DATETIME, which have no zone (PostgreSQL's timestamp does the same). Without the
 *   cast MySQL compares a string with a number as doubles and silently ignores an offset.
 * - text columns: numbers and booleans are bound as their text (`5` → `'5'`), so `tag = 5`
 *   does not match `'5abc'` through a double comparison. No CAST: a string literal takes the
 *   column's collation, a CAST would clash with it.
 * `like` matches with the column's collation (case-insensitive for the usual `_ci` ones); a
 * non-text column is matched on its text form by MySQL itself.
 */
class MySqlColumnFilter extends SqlColumnFilter {
  constructor(
    field: string,
    private readonly kind: MySqlValueKind | null,
    private readonly cast: string | undefined,
    private readonly sql: MySqlStatementBuilder,
  ) {
    super(quoteIdent(field));
  }

  override bind(value: FilterScalar): string {
    const { kind, cast, sql } = this;
    // TINYINT(1) reads PostgreSQL's boolean texts: CAST('true' AS DECIMAL) would be 0.
    if (kind === 'boolean' && typeof value === 'string') value = readBooleanText(value) ?? value;
    if (kind !== null && TEXT_KINDS.has(kind) && (typeof value === 'number' || typeof value === 'boolean'))
      return sql.placeholder(String(value));
    const placeholder = sql.placeholder(temporalValue(value, kind));
    return value === null || cast === undefined ? placeholder : `CAST(${placeholder} AS ${cast})`;
  }

  override like(pattern: FilterScalar): string {
    // The pattern is always text; MySQL matches a non-text column on its text form.
    return `${this.subject} LIKE ${this.sql.placeholder(pattern === null ? null : String(pattern))}`;
  }
}

/**
 * Appends ` WHERE …` with bound values to `sql`, or nothing when no filter applies. `columns`
 * are the table's columns, for types.
 */
export function buildWhere(
  filters: Readonly<Record<string, FilterCondition>>,
  columns: readonly ColumnInfo[],
  sql: MySqlStatementBuilder,
): void {
  const where = buildSqlWhere(filters, columns, (field, column) => {
    const type = column === undefined ? null : mysqlColumnType(column);
    return new MySqlColumnFilter(field, type?.kind ?? null, type?.castType, sql);
  });
  if (where !== '') sql.append(' WHERE ' + where);
}
