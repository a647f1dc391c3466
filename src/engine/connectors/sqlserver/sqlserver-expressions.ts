import type { SqlServerValueKind } from './sqlserver-types.js';

/**
 * How a column is read, as SQL over its quoted name. tedious turns decimal/numeric/money into JS
 * doubles and date/time types into JS Dates (milliseconds, local-time conversions), so those are
 * converted to exact text by the server instead; every other kind arrives intact.
 *
 * - decimal/numeric: CONVERT to varchar gives every digit at the column's scale (`100.50`).
 * - money/smallmoney: style 2, the four decimals the type stores (`100.5000`); the default
 *   style would round to two.
 * - datetime2/datetimeoffset/datetime: style 121 (ODBC canonical), which keeps the fraction at
 *   the type's precision even when it is zero (style 126 drops a zero fraction).
 *   datetimeoffset keeps its stored offset. smalldatetime: style 120, it has no fraction.
 * - date: style 23 (`yyyy-mm-dd`). time: CAST, whose default style prints `hh:mm:ss[.fffffff]`.
 * - geography/geometry/hierarchyid/CLR types: their `ToString()` text (WKT, `/1/2/`).
 * - sql_variant: the text of the value by its base type (see VARIANT_TEXT).
 * - json (SQL Server 2025) and unknown future types: nvarchar text.
 */
export function readExpression(quoted: string, kind: SqlServerValueKind): string {
  const read = READ_AS_TEXT[kind];
  return read === undefined ? quoted : read(quoted);
}

/**
 * The text of a column where SQL needs text: `like` on any column (PostgreSQL matches a non-text
 * column on its text form too), and comparisons on types that have no `=` of their own (text,
 * ntext, xml, CLR types). Text columns stay bare so they keep their collation; the kinds not in
 * TEXT_FORM are matched on the text they are read as.
 */
export function textExpression(quoted: string, kind: SqlServerValueKind): string {
  const text = TEXT_FORM[kind];
  return text === undefined ? readExpression(quoted, kind) : text(quoted);
}

type Expression = (quoted: string) => string;

/** `CONVERT(type, column[, style])`. */
const convert =
  (type: string, style?: number): Expression =>
  (quoted) =>
    style === undefined ? `CONVERT(${type}, ${quoted})` : `CONVERT(${type}, ${quoted}, ${style})`;

const asLongText: Expression = (quoted) => `CAST(${quoted} AS nvarchar(max))`;

/** What readExpression reads as text, by kind (see there); the other kinds are read bare. */
const READ_AS_TEXT: Partial<Record<SqlServerValueKind, Expression>> = {
  decimal: convert('varchar(41)'),
  money: convert('varchar(30)', 2),
  datetime2: convert('varchar(27)', 121),
  datetime: convert('varchar(23)', 121),
  smalldatetime: convert('varchar(19)', 120),
  datetimeoffset: convert('varchar(34)', 121),
  date: convert('varchar(10)', 23),
  time: (quoted) => `CAST(${quoted} AS varchar(16))`,
  clr: (quoted) => `${quoted}.ToString()`,
  variant: variantText,
  json: convert('nvarchar(max)'),
  other: convert('nvarchar(max)'),
};

/** The text forms of kinds the driver reads intact but SQL cannot match as text (see textExpression). */
const TEXT_FORM: Partial<Record<SqlServerValueKind, Expression>> = {
  text: (quoted) => quoted,
  'long-text': asLongText,
  xml: asLongText,
  boolean: (quoted) => `CASE ${quoted} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END`,
  integer: convert('varchar(20)'),
  bigint: convert('varchar(20)'),
  float: convert('varchar(30)', 3),
  real: convert('varchar(30)', 3),
  uuid: (quoted) => `LOWER(CONVERT(char(36), ${quoted}))`,
  binary: convert('varchar(max)', 1),
};

/** sql_variant base types whose plain CONVERT would lose digits or use a locale format. */
const VARIANT_TEXT: readonly (readonly [string, (q: string) => string])[] = [
  ['datetime2', (q) => `CONVERT(nvarchar(40), CAST(${q} AS datetime2(7)), 121)`],
  ['datetimeoffset', (q) => `CONVERT(nvarchar(40), CAST(${q} AS datetimeoffset(7)), 121)`],
  ['datetime', (q) => `CONVERT(nvarchar(40), CAST(${q} AS datetime), 121)`],
  ['smalldatetime', (q) => `CONVERT(nvarchar(40), CAST(${q} AS smalldatetime), 120)`],
  ['date', (q) => `CONVERT(nvarchar(40), CAST(${q} AS date), 23)`],
  ['time', (q) => `CAST(CAST(${q} AS time(7)) AS nvarchar(40))`],
  ['money', (q) => `CONVERT(nvarchar(40), CAST(${q} AS money), 2)`],
  ['smallmoney', (q) => `CONVERT(nvarchar(40), CAST(${q} AS money), 2)`],
  ['float', (q) => `CONVERT(nvarchar(40), CAST(${q} AS float), 3)`],
  ['real', (q) => `CONVERT(nvarchar(40), CAST(${q} AS real), 3)`],
  ['uniqueidentifier', (q) => `LOWER(CONVERT(nvarchar(36), ${q}))`],
  ['binary', (q) => `CONVERT(nvarchar(max), CAST(${q} AS varbinary(8000)), 1)`],
  ['varbinary', (q) => `CONVERT(nvarchar(max), CAST(${q} AS varbinary(8000)), 1)`],
];

/** Integers, decimals (exact), strings and bits convert faithfully by default; the rest as above. */
function variantText(quoted: string): string {
  const branches = VARIANT_TEXT.map(([base, text]) => ` WHEN N'${base}' THEN ${text(quoted)}`).join('');
  return `CASE CAST(SQL_VARIANT_PROPERTY(${quoted}, 'BaseType') AS nvarchar(128))${branches} ELSE CONVERT(nvarchar(max), ${quoted}) END`;
}
