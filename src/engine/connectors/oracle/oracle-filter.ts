import type { FilterCondition, FilterScalar } from '../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { readBooleanText } from '../sql/boolean-text.js';
import { SqlColumnFilter, type PresentScalar, type SqlComparison } from '../sql/sql-column-filter.js';
import { buildSqlWhere } from '../sql/where-builder.js';
import { quoteIdent } from './oracle-identifier.js';
import type { OracleStatementBuilder } from './oracle-statement-builder.js';
import { isoFormat, temporalOperand } from './oracle-temporal.js';
import { oracleColumnType, type OracleColumnType, type OracleValueKind } from './oracle-types.js';

/**
 * Filters → one WHERE clause (sql/where-builder.ts), with the semantics every SQL engine shares
 * (sql/sql-column-filter.ts).
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

/** Oracle refuses more than 1000 expressions in one IN list (ORA-01795). */
export const MAX_IN_LIST = 1000;
/** Oracle takes at most 65,535 bind variables in one statement. */
export const MAX_BINDS = 65_535;

const NUMERIC: ReadonlySet<OracleValueKind> = new Set(['integer', 'decimal', 'binary_float', 'binary_double']);
const TEMPORAL: ReadonlySet<OracleValueKind> = new Set(['date', 'timestamp', 'timestamp_tz', 'timestamp_ltz']);
const TEXT: ReadonlySet<OracleValueKind> = new Set(['text', 'char', 'long', 'clob', 'rowid']);

const describeValue = (value: string): string => JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value);

class OracleColumnFilter extends SqlColumnFilter {
  private readonly kind: OracleValueKind | null;

  constructor(
    private readonly field: string,
    private readonly type: OracleColumnType | null,
    private readonly sql: OracleStatementBuilder,
    /** Past the bind limit: list integers on numeric columns written as literals (see above). */
    private readonly inlineIntegers: boolean,
  ) {
    super(quoteIdent(field));
    this.kind = type?.kind ?? null;
  }

  override bind(value: FilterScalar): string {
    return value === null ? this.sql.placeholder(null) : this.operand(value);
  }

  /** `c op v`, or for LOBs (which `=`/`<` reject) `DBMS_LOB.COMPARE(c, v) op 0`. */
  override compare(operator: SqlComparison, value: FilterScalar): string {
    if (this.kind !== 'clob') return super.compare(operator, value);
    return `DBMS_LOB.COMPARE(${this.subject}, ${this.bind(value)}) ${operator} 0`;
  }

  override between(low: FilterScalar, high: FilterScalar): string {
    if (this.kind === 'clob') return `(${this.compare('>=', low)} AND ${this.compare('<=', high)})`;
    return super.between(low, high);
  }

  /** IN lists of at most MAX_IN_LIST values each; on LOBs one comparison per value. */
  override several(values: readonly PresentScalar[], negated: boolean): string[] {
    if (this.kind === 'clob') return values.map((v) => this.compare(negated ? '<>' : '=', v));
    const tests: string[] = [];
    for (let i = 0; i < values.length; i += MAX_IN_LIST) {
      const items = values.slice(i, i + MAX_IN_LIST).map((v) => this.listItem(v));
      tests.push(`${this.subject} ${negated ? 'NOT IN' : 'IN'} (${items.join(', ')})`);
    }
    return tests;
  }

  override like(pattern: FilterScalar): string {
    return `${this.likeSubject()} LIKE ${this.sql.placeholder(pattern === null ? null : likePattern(String(pattern)))} ESCAPE '\\'`;
  }

  /** The SQL of one non-null filter value (placeholders bound on `sql`). */
  private operand(value: PresentScalar): string {
    const { sql, kind, type } = this;
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
          `filter value ${shown} for ${type.dataType} column "${this.field}" is not an ISO-8601 date (YYYY-MM-DD[THH:MM[:SS[.fff]]][zone])`,
        );
      }
      return temporal.sql(sql.placeholder(temporal.value));
    }
    if (kind === 'boolean') {
      if (typeof value === 'string') return sql.placeholder(readBooleanText(value) ?? value);
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
  private listItem(value: PresentScalar): string {
    const { kind } = this;
    if (this.inlineIntegers && kind !== null && NUMERIC.has(kind)) {
      if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
      if (typeof value === 'boolean') return value ? '1' : '0';
      // TO_NUMBER of plain integer digits is that NUMBER whatever the NLS settings (64-bit IDs
      // travel as strings). Not for BINARY_*: TO_BINARY_* rounds a long one its own way.
      const digits = typeof value === 'string' ? value.trim() : '';
      if ((kind === 'integer' || kind === 'decimal') && /^-?\d{1,38}$/.test(digits)) return digits;
    }
    return this.operand(value);
  }

  private likeSubject(): string {
    const { kind, type, subject } = this;
    if (kind === null || TEXT.has(kind) || kind === 'xml') return subject;
    if (type !== null && TEMPORAL.has(type.kind)) return `TO_CHAR(${subject}, '${isoFormat(type, false)}')`;
    if (kind === 'json') return `JSON_SERIALIZE(${subject} RETURNING CLOB)`;
    return `TO_CHAR(${subject})`;
  }
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

/**
 * Appends ` WHERE …` with bound values to `sql`, or nothing when no filter applies. `columns`
 * are the table's columns, for types. Throws OracleFilterError for a value that cannot be read
 * as the column's type, and for filters needing more binds than Oracle takes.
 */
export function buildWhere(
  filters: Readonly<Record<string, FilterCondition>>,
  columns: readonly ColumnInfo[],
  sql: OracleStatementBuilder,
): void {
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
  sql: OracleStatementBuilder,
  inlineIntegers: boolean,
): void {
  const where = buildSqlWhere(
    filters,
    columns,
    (field, column) => new OracleColumnFilter(field, column === undefined ? null : oracleColumnType(column), sql, inlineIntegers),
  );
  if (where !== '') sql.append(' WHERE ' + where);
}
