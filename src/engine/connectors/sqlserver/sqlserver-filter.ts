import type { FilterCondition, FilterScalar } from '../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { readBooleanText } from '../sql/boolean-text.js';
import { SqlColumnFilter, type PresentScalar } from '../sql/sql-column-filter.js';
import { buildSqlWhere } from '../sql/where-builder.js';
import { textExpression } from './sqlserver-expressions.js';
import { quoteIdent } from './sqlserver-identifier.js';
import { MAX_STATEMENT_PARAMS, openJsonMembership } from './sqlserver-json-list.js';
import type { SqlBinding, SqlParam, SqlParamType } from './sqlserver-parameters.js';
import { sqlServerColumnType, type SqlServerColumnType, type SqlServerValueKind } from './sqlserver-types.js';

/** Kinds with no comparison operators of their own: compared through their text. */
const TEXT_COMPARED: ReadonlySet<SqlServerValueKind> = new Set(['long-text', 'xml', 'json', 'clr', 'variant', 'other']);
const DECIMAL_KINDS: ReadonlySet<SqlServerValueKind> = new Set(['integer', 'bigint', 'decimal', 'money']);
const DATETIME2_KINDS: ReadonlySet<SqlServerValueKind> = new Set(['datetime2', 'datetime', 'smalldatetime']);

/**
 * The exact decimal type a value is CAST to for a numeric column: as many fraction digits as fit
 * beside the column's integer digits, so no value the column can hold is rounded or overflows.
 */
export function decimalCast(type: Pick<SqlServerColumnType, 'precision' | 'scale'>): string {
  const integerDigits = Math.max(1, Math.min(38, type.precision - type.scale));
  return `decimal(38,${38 - integerDigits})`;
}

/** A JS number as plain decimal text (CAST to decimal refuses exponents: `1e-7`, `1e+21`). */
export function decimalText(n: number): string {
  const text = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (m === null) return text;
  const [, sign, whole, fraction = '', exponent] = m;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** `2024-01-15T10:20[:30][.123456789][Z|+02[:00]]`: ISO date-time with an optional zone. */
const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(\.\d+)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * An ISO date-time string in the form SQL Server reads for the column's type: seconds added when
 * missing, the fraction cut to the 7 digits datetime2 holds, the zone dropped for types without
 * one (PostgreSQL's timestamp does the same) and written `+hh:mm` for datetimeoffset.
 */
export function temporalValue(value: string, kind: SqlServerValueKind): string {
  if (!DATETIME2_KINDS.has(kind) && kind !== 'date' && kind !== 'datetimeoffset') return value;
  const m = ISO_DATE_TIME.exec(value.trim());
  if (m === null) return value;
  const [, day, clock, seconds = ':00', fraction = '', zone] = m;
  const local = `${day}T${clock}${seconds}${fraction.slice(0, 8)}`;
  if (kind !== 'datetimeoffset' || zone === undefined) return local;
  if (zone.toUpperCase() === 'Z') return local + '+00:00';
  const digits = zone.slice(1).replace(':', '');
  return `${local}${zone[0]}${digits.slice(0, 2)}:${digits.slice(2) || '00'}`;
}

/** How one value is bound for a column of `type` (null: no engine type known, bound as text). */
export function bindingFor(type: SqlServerColumnType | null, value: FilterScalar): SqlBinding {
  const kind = type?.kind ?? 'text';
  if (type !== null && DECIMAL_KINDS.has(kind)) {
    const text = typeof value === 'number' ? decimalText(value) : typeof value === 'boolean' ? (value ? '1' : '0') : value;
    return { type: 'nvarchar', value: text, cast: decimalCast(type) };
  }
  switch (kind) {
    case 'boolean': {
      if (typeof value === 'boolean' || value === null) return { type: 'bit', value };
      if (typeof value === 'number') return { type: 'bit', value: value !== 0 };
      const flag = readBooleanText(value);
      return flag === undefined ? { type: 'nvarchar', value, cast: 'bit' } : { type: 'bit', value: flag };
    }
    case 'float':
    case 'real':
      if (typeof value === 'number' || value === null) return { type: 'float', value };
      return { type: 'nvarchar', value: typeof value === 'boolean' ? (value ? '1' : '0') : value, cast: 'float' };
    case 'date':
    case 'datetime2':
    case 'datetime':
    case 'smalldatetime':
    case 'datetimeoffset':
    case 'time': {
      const text = value === null ? null : temporalValue(String(value), kind);
      const cast =
        kind === 'date' ? 'date' : kind === 'datetimeoffset' ? 'datetimeoffset(7)' : kind === 'time' ? 'time(7)' : 'datetime2(7)';
      return { type: 'nvarchar', value: text, cast };
    }
    case 'uuid':
      return { type: 'nvarchar', value: value === null ? null : String(value), cast: 'uniqueidentifier' };
    case 'binary':
      // Binary values appear as base64 in results; a filter value is read the same way.
      if (typeof value === 'string') return { type: 'varbinary', value: Buffer.from(value, 'base64') };
      return value === null ? { type: 'varbinary', value: null } : { type: 'nvarchar', value: String(value) };
    default:
      return { type: 'nvarchar', value: value === null ? null : String(value) };
  }
}

/** A LIKE pattern with PostgreSQL's reading under `ESCAPE '\'`: `[` is a literal, `\x` stays an escape. */
export function likePattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      out += c + pattern[++i];
    } else {
      out += c === '[' ? '\\[' : c;
    }
  }
  return out;
}

function push(params: SqlParam[], type: SqlParamType, value: SqlParam['value']): string {
  const name = `p${params.length + 1}`;
  params.push({ name, type, value });
  return '@' + name;
}

/**
 * Filters → one WHERE clause (sql/where-builder.ts), with the semantics every SQL engine shares
 * (sql/sql-column-filter.ts).
 *
 * Values are bound as typed parameters and made to compare as the column's type, as
 * PostgreSQL's `$n::type` does: a string against a date/time column is CAST to that type (so it
 * compares as a date, never as text), a number or numeric string against a numeric column is
 * CAST to an exact decimal, a number or boolean against a text column is bound as its text
 * (SQL Server would otherwise convert the column to int and fail on the first non-number).
 *
 * `like` matches the column's text form with the column's collation. SQL Server's own LIKE also
 * treats `[...]` as a character class and has no escape character; the pattern is rewritten so
 * that, as on the other engines, only `%` and `_` are wildcards and `\` escapes.
 *
 * A statement whose values would pass SQL Server's parameter limit binds each list of several
 * values as one JSON parameter instead (sqlserver-json-list.ts), with the same typing; others keep
 * one parameter per value, which also works where OPENJSON does not (compatibility level < 130).
 */
class SqlServerColumnFilter extends SqlColumnFilter {
  constructor(
    subject: string,
    /** The column's text form, for LIKE. */
    private readonly text: string,
    private readonly type: SqlServerColumnType | null,
    private readonly params: SqlParam[],
    /** Lists of several values as one JSON parameter each, rather than one parameter per value. */
    private readonly jsonLists: boolean,
  ) {
    super(subject);
  }

  override bind(value: FilterScalar): string {
    const binding = bindingFor(this.type, value);
    const placeholder = push(this.params, binding.type, binding.value);
    return binding.cast === undefined ? placeholder : `CAST(${placeholder} AS ${binding.cast})`;
  }

  override several(values: readonly PresentScalar[], negated: boolean): string[] {
    if (!this.jsonLists) return super.several(values, negated);
    const bindings = values.map((value) => bindingFor(this.type, value));
    return [openJsonMembership(this.subject, bindings, negated, (type, json) => push(this.params, type, json))];
  }

  override like(pattern: FilterScalar): string {
    const placeholder = push(this.params, 'nvarchar', pattern === null ? null : likePattern(String(pattern)));
    return `${this.text} LIKE ${placeholder} ESCAPE N'\\'`;
  }
}

/**
 * Appends the parameters to `params` (names continue its numbering) and returns the predicate
 * text, '' when no filter applies. `columns` are the table's columns, for types. Rendered again
 * with JSON lists when one parameter per value would pass MAX_STATEMENT_PARAMS.
 */
export function buildWhere(filters: Readonly<Record<string, FilterCondition>>, columns: readonly ColumnInfo[], params: SqlParam[]): string {
  const inline = [...params];
  const where = render(filters, columns, inline, false);
  if (inline.length <= MAX_STATEMENT_PARAMS) {
    params.push(...inline.slice(params.length));
    return where;
  }
  return render(filters, columns, params, true);
}

function render(
  filters: Readonly<Record<string, FilterCondition>>,
  columns: readonly ColumnInfo[],
  params: SqlParam[],
  jsonLists: boolean,
): string {
  return buildSqlWhere(filters, columns, (field, column) => {
    const type = column === undefined ? null : sqlServerColumnType(column);
    const quoted = quoteIdent(field);
    const kind = type?.kind ?? 'text';
    const text = textExpression(quoted, kind);
    return new SqlServerColumnFilter(TEXT_COMPARED.has(kind) ? text : quoted, text, type, params, jsonLists);
  });
}
