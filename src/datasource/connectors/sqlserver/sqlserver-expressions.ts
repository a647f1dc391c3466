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
  switch (kind) {
    case 'decimal':
      return `CONVERT(varchar(41), ${quoted})`;
    case 'money':
      return `CONVERT(varchar(30), ${quoted}, 2)`;
    case 'datetime2':
      return `CONVERT(varchar(27), ${quoted}, 121)`;
    case 'datetime':
      return `CONVERT(varchar(23), ${quoted}, 121)`;
    case 'smalldatetime':
      return `CONVERT(varchar(19), ${quoted}, 120)`;
    case 'datetimeoffset':
      return `CONVERT(varchar(34), ${quoted}, 121)`;
    case 'date':
      return `CONVERT(varchar(10), ${quoted}, 23)`;
    case 'time':
      return `CAST(${quoted} AS varchar(16))`;
    case 'clr':
      return `${quoted}.ToString()`;
    case 'variant':
      return variantText(quoted);
    case 'json':
    case 'other':
      return `CONVERT(nvarchar(max), ${quoted})`;
    default:
      return quoted;
  }
}

/**
 * The text of a column where SQL needs text: `like` on any column (PostgreSQL matches a non-text
 * column on its text form too), and comparisons on types that have no `=` of their own (text,
 * ntext, xml, CLR types). Text columns stay bare so they keep their collation.
 */
export function textExpression(quoted: string, kind: SqlServerValueKind): string {
  switch (kind) {
    case 'text':
      return quoted;
    case 'long-text':
    case 'xml':
      return `CAST(${quoted} AS nvarchar(max))`;
    case 'boolean':
      return `CASE ${quoted} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END`;
    case 'integer':
    case 'bigint':
      return `CONVERT(varchar(20), ${quoted})`;
    case 'float':
    case 'real':
      return `CONVERT(varchar(30), ${quoted}, 3)`;
    case 'uuid':
      return `LOWER(CONVERT(char(36), ${quoted}))`;
    case 'binary':
      return `CONVERT(varchar(max), ${quoted}, 1)`;
    default:
      return readExpression(quoted, kind);
  }
}

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
