import type { FilterCondition, FilterOperator, FilterScalar } from '../../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { quoteIdent } from './oracle-identifier.js';
import type { SqlBuilder } from './oracle-sql.js';
import { isoFormat, temporalOperand } from './oracle-temporal.js';
import { oracleColumnType, type OracleColumnType, type OracleValueKind } from './oracle-types.js';

/**
 * Filters → one WHERE clause (SPEC §4.3), with the semantics of the PostgreSQL and MySQL
 * connectors so the same dataset and filter give the same rows. Every field and operator is
 * ANDed; operators of one field are emitted in a fixed order so the SQL is deterministic.
 *
 * NULL inside a value list is treated as a value: `eq`/`in` [1, null] → `(c = 1 OR c IS NULL)`;
 * `ne`/`nin` [1, null] → `(c <> 1 AND c IS NOT NULL)`. Without a null, `ne`/`nin` keep SQL
 * semantics (NULL rows never match). A null in `gt gte lt lte between like` matches nothing.
 *
 * Values are made to compare as the column's type:
 * - NUMBER: numbers bound as numbers, strings through TO_NUMBER (exact: `'9007199254740993'`
 *   keeps its digits), booleans as 1/0; BINARY_FLOAT/DOUBLE: strings through TO_BINARY_*;
 * - DATE/TIMESTAMP*: ISO-8601 strings through TO_DATE/TO_TIMESTAMP[_TZ] with fixed formats
 *   (oracle-temporal.ts); any other string is refused here with a clear message;
 * - text: numbers and booleans as their text (`5` → `'5'`); CHAR/NCHAR bound as CHAR so the
 *   comparison is blank-padded; CLOB/NCLOB, which `=` and `<` reject, through DBMS_LOB.COMPARE;
 * - BOOLEAN (23ai): booleans, PostgreSQL's boolean texts, numbers (non-zero is true).
 * `like` always matches text: the column's own for character types, the reader's ISO text for
 * dates, TO_CHAR otherwise; `\` escapes `%`, `_` and itself, as on PostgreSQL and MySQL.
 *
 * Values are bound, never written into the SQL, with one exception: a statement that would need
 * more than MAX_BINDS binds writes the integers of its lists on numeric columns as NUMBER
 * literals, which is what binding them gives (node-oracledb binds a JS number as NUMBER; TO_NUMBER
 * reads integer digits exactly). IDs are what such lists hold; a statement still over the limit
 * is refused with OracleFilterError.
 */
export class OracleFilterError extends Error {
  override readonly name = 'OracleFilterError';
}

const OPERATOR_ORDER: readonly FilterOperator[] = ['eq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'ne', 'like'];
const COMPARISON: Partial<Record<FilterOperator, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** Oracle refuses more than 1000 expressions in one IN list (ORA-01795). */
export const MAX_IN_LIST = 1000;
/** Oracle takes at most 65,535 bind variables in one statement. */
export const MAX_BINDS = 65_535;

const NUMERIC: ReadonlySet<OracleValueKind> = new Set(['integer', 'decimal', 'binary_float', 'binary_double']);
const TEMPORAL: ReadonlySet<OracleValueKind> = new Set(['date', 'timestamp', 'timestamp_tz', 'timestamp_ltz']);
const TEXT: ReadonlySet<OracleValueKind> = new Set(['text', 'char', 'long', 'clob', 'rowid']);

const BOOLEAN_TEXT: ReadonlyMap<string, boolean> = new Map([
  ...['true', 't', 'yes', 'y', 'on', '1'].map((text): [string, boolean] => [text, true]),
  ...['false', 'f', 'no', 'n', 'off', '0'].map((text): [string, boolean] => [text, false]),
]);

interface FieldContext {
  readonly field: string;
  readonly column: string;
  readonly type: OracleColumnType | null;
  readonly kind: OracleValueKind | null;
  readonly sql: SqlBuilder;
  /** Past the bind limit: list integers on numeric columns written as literals (see above). */
  readonly inlineIntegers: boolean;
}

const describeValue = (value: string): string => JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value);

/** The SQL of one non-null filter value (placeholders bound on `ctx.sql`). */
function operand(ctx: FieldContext, value: Exclude<FilterScalar, null>): string {
  const { sql, kind, type } = ctx;
  if (kind !== null && NUMERIC.has(kind)) {
    if (typeof value === 'boolean') return sql.placeholder(value ? 1 : 0);
    if (typeof value === 'number') return sql.placeholder(value);
    const fn = kind === 'binary_float' ? 'TO_BINARY_FLOAT' : kind === 'binary_double' ? 'TO_BINARY_DOUBLE' : 'TO_NUMBER';
    return `${fn}(${sql.placeholder(value.trim())})`;
  }
  if (type !== null && TEMPORAL.has(type.kind)) {
    const temporal = typeof value === 'string' ? temporalOperand(type, value) : null;
    if (temporal === null) {
      const shown = typeof value === 'string' ? describeValue(value) : String(value);
      throw new OracleFilterError(
        `filter value ${shown} for ${type.dataType} column "${ctx.field}" is not an ISO-8601 date (YYYY-MM-DD[THH:MM[:SS[.fff]]][zone])`,
      );
    }
    return temporal.sql(sql.placeholder(temporal.value));
  }
  if (kind === 'boolean') {
    if (typeof value === 'string') return sql.placeholder(BOOLEAN_TEXT.get(value.trim().toLowerCase()) ?? value);
    return sql.placeholder(typeof value === 'number' ? value !== 0 : value);
  }
  if (kind !== null && TEXT.has(kind)) {
    const text = String(value);
    if (kind === 'char') return sql.placeholder({ charType: type?.national ? 'nchar' : 'char', value: text });
    if (kind === 'clob') return `${type?.national ? 'TO_NCLOB' : 'TO_CLOB'}(${sql.placeholder(text)})`;
    return sql.placeholder(text);
  }
  // Elsewhere booleans are 1/0: a JS boolean binds as BOOLEAN, which servers before 23ai refuse.
  return sql.placeholder(typeof value === 'boolean' ? (value ? 1 : 0) : value);
}

/** One value of an IN list: a literal where the statement is past the bind limit and that is exact. */
function listItem(ctx: FieldContext, value: Exclude<FilterScalar, null>): string {
  if (ctx.inlineIntegers && ctx.kind !== null && NUMERIC.has(ctx.kind)) {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    if (typeof value === 'boolean') return value ? '1' : '0';
    // TO_NUMBER of plain integer digits is that NUMBER whatever the NLS settings (64-bit IDs
    // travel as strings). Not for BINARY_*: TO_BINARY_* rounds a long one its own way.
    const digits = typeof value === 'string' ? value.trim() : '';
    if ((ctx.kind === 'integer' || ctx.kind === 'decimal') && /^-?\d{1,38}$/.test(digits)) return digits;
  }
  return operand(ctx, value);
}

/** `c op v`, or for LOBs (which `=`/`<` reject) `DBMS_LOB.COMPARE(c, v) op 0`. */
function compare(ctx: FieldContext, op: string, value: FilterScalar): string {
  const right = value === null ? ctx.sql.placeholder(null) : operand(ctx, value);
  return ctx.kind === 'clob' ? `DBMS_LOB.COMPARE(${ctx.column}, ${right}) ${op} 0` : `${ctx.column} ${op} ${right}`;
}

/** `eq`/`in` (negated: `ne`/`nin`) over a list that may hold nulls. */
function membership(ctx: FieldContext, list: readonly FilterScalar[], negated: boolean): string {
  const present = list.filter((v): v is Exclude<FilterScalar, null> => v !== null);
  const parts: string[] = [];
  if (present.length === 1 || (present.length > 1 && ctx.kind === 'clob')) {
    parts.push(...present.map((v) => compare(ctx, negated ? '<>' : '=', v)));
  } else if (present.length > 1) {
    for (let i = 0; i < present.length; i += MAX_IN_LIST) {
      const items = present.slice(i, i + MAX_IN_LIST).map((v) => listItem(ctx, v));
      parts.push(`${ctx.column} ${negated ? 'NOT IN' : 'IN'} (${items.join(', ')})`);
    }
  }
  if (present.length < list.length) parts.push(`${ctx.column} ${negated ? 'IS NOT NULL' : 'IS NULL'}`);
  return parts.length === 1 ? parts[0] : '(' + parts.join(negated ? ' AND ' : ' OR ') + ')';
}

/**
 * PostgreSQL's LIKE escape rules on Oracle's `ESCAPE '\'`: `\%`, `\_`, `\\` stay escapes; Oracle
 * refuses `\` before any other character (ORA-01424), where PostgreSQL reads the character
 * literally, so that backslash is dropped; a trailing `\` becomes a literal backslash.
 */
export function likePattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = pattern[i + 1];
    if (next === undefined) out += '\\\\';
    else if (next === '%' || next === '_' || next === '\\') out += c + next;
    else out += next;
    i++;
  }
  return out;
}

function likeSubject(ctx: FieldContext): string {
  const { kind, type, column } = ctx;
  if (kind === null || TEXT.has(kind) || kind === 'xml') return column;
  if (type !== null && TEMPORAL.has(type.kind)) return `TO_CHAR(${column}, '${isoFormat(type, false)}')`;
  if (kind === 'json') return `JSON_SERIALIZE(${column} RETURNING CLOB)`;
  return `TO_CHAR(${column})`;
}

function predicate(ctx: FieldContext, op: FilterOperator, list: readonly FilterScalar[]): string {
  switch (op) {
    case 'eq':
    case 'in':
      return membership(ctx, list, false);
    case 'ne':
    case 'nin':
      return membership(ctx, list, true);
    case 'between':
      if (ctx.kind === 'clob') return `(${compare(ctx, '>=', list[0])} AND ${compare(ctx, '<=', list[1])})`;
      return `${ctx.column} BETWEEN ${list[0] === null ? ctx.sql.placeholder(null) : operand(ctx, list[0])} AND ${list[1] === null ? ctx.sql.placeholder(null) : operand(ctx, list[1])}`;
    case 'like': {
      const pattern = list[0] === null ? null : likePattern(String(list[0]));
      return `${likeSubject(ctx)} LIKE ${ctx.sql.placeholder(pattern)} ESCAPE '\\'`;
    }
    default:
      return compare(ctx, COMPARISON[op] ?? '=', list[0]);
  }
}

/**
 * Appends ` WHERE …` with bound values to `sql`, or nothing when no filter applies. `columns`
 * are the table's columns, for types. Throws OracleFilterError for a value that cannot be read
 * as the column's type, and for filters needing more binds than Oracle takes.
 */
export function buildWhere(filters: Readonly<Record<string, FilterCondition>>, columns: readonly ColumnInfo[], sql: SqlBuilder): void {
  // Counted on a scratch builder first, so that `sql` only ever gets the statement sent.
  const binds = (inlineIntegers: boolean) => {
    const scratch = sql.scratch();
    render(filters, columns, scratch, inlineIntegers);
    return sql.bindCount + scratch.bindCount;
  };
  let inlineIntegers = false;
  if (binds(false) > MAX_BINDS) {
    inlineIntegers = true;
    const needed = binds(true);
    if (needed > MAX_BINDS) {
      throw new OracleFilterError(
        `the filters need ${needed} bind values, more than the ${MAX_BINDS} Oracle takes in one statement (only integers on numeric columns can be written into it instead)`,
      );
    }
  }
  render(filters, columns, sql, inlineIntegers);
}

function render(
  filters: Readonly<Record<string, FilterCondition>>,
  columns: readonly ColumnInfo[],
  sql: SqlBuilder,
  inlineIntegers: boolean,
): void {
  const byName = new Map(columns.map((c) => [c.name, c]));
  const predicates: string[] = [];
  for (const [field, condition] of Object.entries(filters)) {
    const column = byName.get(field);
    const type = column === undefined ? null : oracleColumnType(column);
    const ctx: FieldContext = { field, column: quoteIdent(field), type, kind: type?.kind ?? null, sql, inlineIntegers };
    for (const op of OPERATOR_ORDER) {
      const list = condition[op];
      if (list === undefined || list.length === 0) continue;
      predicates.push(predicate(ctx, op, list));
    }
  }
  if (predicates.length > 0) sql.append(' WHERE ' + predicates.join(' AND '));
}
