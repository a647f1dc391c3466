import type { FilterCondition, FilterOperator, FilterScalar } from '../../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { quoteIdent } from './mysql-identifier.js';
import type { SqlBuilder } from './mysql-sql.js';
import { mysqlColumnType, type MySqlValueKind } from './mysql-types.js';

/**
 * Filters → one WHERE clause (SPEC §4.3), with the semantics of the PostgreSQL connector so the
 * same dataset and filter give the same rows. Every field and operator is ANDed; operators of
 * one field are emitted in a fixed order so the SQL is deterministic.
 *
 * NULL inside a value list is treated as a value, not as an unknown:
 * - `eq`/`in` [1, null]  → `(c = 1 OR c IS NULL)`: matches 1 or NULL.
 * - `ne`/`nin` [1, null] → `(c <> 1 AND c IS NOT NULL)`: matches neither.
 * Without a null in the list, `ne`/`nin` keep plain SQL semantics: NULL rows never match `<>` or
 * NOT IN. A null in `gt gte lt lte between like` is bound as NULL and so matches nothing.
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
const OPERATOR_ORDER: readonly FilterOperator[] = ['eq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'ne', 'like'];

const COMPARISON: Partial<Record<FilterOperator, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

const TEXT_KINDS: ReadonlySet<MySqlValueKind> = new Set(['text', 'json-checked']);

interface FieldContext {
  readonly column: string;
  readonly kind: MySqlValueKind | null;
  readonly cast: string | undefined;
  readonly sql: SqlBuilder;
}

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

/** Texts PostgreSQL reads as booleans, for TINYINT(1) columns (CAST('true' AS DECIMAL) would be 0). */
const BOOLEAN_TEXT: ReadonlyMap<string, boolean> = new Map([
  ...['true', 't', 'yes', 'y', 'on', '1'].map((text): [string, boolean] => [text, true]),
  ...['false', 'f', 'no', 'n', 'off', '0'].map((text): [string, boolean] => [text, false]),
]);

function bindValue(ctx: FieldContext, value: FilterScalar): void {
  if (ctx.kind === 'boolean' && typeof value === 'string') {
    const flag = BOOLEAN_TEXT.get(value.trim().toLowerCase());
    if (flag !== undefined) value = flag;
  }
  if (ctx.kind !== null && TEXT_KINDS.has(ctx.kind) && (typeof value === 'number' || typeof value === 'boolean')) {
    ctx.sql.bind(String(value));
    return;
  }
  ctx.sql.bind(temporalValue(value, ctx.kind), value === null ? undefined : ctx.cast);
}

/** `eq`/`in` (negated: `ne`/`nin`) over a list that may hold nulls. */
function membership(ctx: FieldContext, list: readonly FilterScalar[], negated: boolean): void {
  const present = list.filter((v) => v !== null);
  const hasNull = present.length < list.length;
  const grouped = hasNull && present.length > 0;
  const { sql, column } = ctx;
  if (grouped) sql.append('(');
  if (present.length === 1) {
    sql.append(`${column} ${negated ? '<>' : '='} `);
    bindValue(ctx, present[0]);
  } else if (present.length > 1) {
    sql.append(`${column} ${negated ? 'NOT IN' : 'IN'} (`);
    present.forEach((v, i) => {
      if (i > 0) sql.append(', ');
      bindValue(ctx, v);
    });
    sql.append(')');
  }
  if (grouped) sql.append(negated ? ' AND ' : ' OR ');
  if (hasNull) sql.append(`${column} ${negated ? 'IS NOT NULL' : 'IS NULL'}`);
  if (grouped) sql.append(')');
}

function predicate(ctx: FieldContext, op: FilterOperator, list: readonly FilterScalar[]): void {
  const { sql, column } = ctx;
  switch (op) {
    case 'eq':
    case 'in':
      return membership(ctx, list, false);
    case 'ne':
    case 'nin':
      return membership(ctx, list, true);
    case 'between':
      sql.append(`${column} BETWEEN `);
      bindValue(ctx, list[0]);
      sql.append(' AND ');
      bindValue(ctx, list[1]);
      return;
    case 'like': {
      // The pattern is always text; MySQL matches a non-text column on its text form.
      const pattern = list[0];
      sql.append(`${column} LIKE `).bind(pattern === null ? null : String(pattern));
      return;
    }
    default:
      sql.append(`${column} ${COMPARISON[op]} `);
      bindValue(ctx, list[0]);
  }
}

/**
 * Appends ` WHERE …` with bound values to `sql`, or nothing when no filter applies. `columns`
 * are the table's columns, for types.
 */
export function buildWhere(filters: Readonly<Record<string, FilterCondition>>, columns: readonly ColumnInfo[], sql: SqlBuilder): void {
  const byName = new Map(columns.map((c) => [c.name, c]));
  let first = true;
  for (const [field, condition] of Object.entries(filters)) {
    const column = byName.get(field);
    const type = column === undefined ? null : mysqlColumnType(column);
    const ctx: FieldContext = { column: quoteIdent(field), kind: type?.kind ?? null, cast: type?.castType, sql };
    for (const op of OPERATOR_ORDER) {
      const list = condition[op];
      if (list === undefined || list.length === 0) continue;
      sql.append(first ? ' WHERE ' : ' AND ');
      first = false;
      predicate(ctx, op, list);
    }
  }
}
