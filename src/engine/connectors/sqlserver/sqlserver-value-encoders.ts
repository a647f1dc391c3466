import { jsonOfCheckedDocument, jsonOfPlainText, jsonOfValue } from '../shared/json-of-value.js';
import { base64String, float32Text, isoDateTime, jsonNumber, quoted } from '../shared/json-text.js';
import { kindBatchRenderer, kindLookup } from '../shared/type-table.js';
import { kindOfColumn, type SqlServerValueKind } from './sqlserver-types.js';

/**
 * A value as tedious hands it over for this connector's SELECT (arrays of values, one per
 * projected column, `lowerCaseGuids` on):
 * - boolean: bit;
 * - number: tinyint, smallint, int, float, real (the double of the stored single);
 * - string: bigint digits, the server-made text of decimal/money/date/time types
 *   (sqlserver-expressions.ts), uniqueidentifier, every character type, xml, CLR text;
 * - Buffer: binary, varbinary, image, rowversion.
 * A Date only appears if a type slipped past the text conversions; it is rendered as ISO text.
 */
export type RawValue = string | number | boolean | Buffer | Date | null | undefined;
export type RawRow = readonly RawValue[];

/** Turns one non-NULL value into JSON text (docs/value-mapping.md, "SQL Server"). */
export type ValueEncoder = (value: string | number | boolean | Buffer | Date) => string;

/** Any value by its own shape: the fallback when a value is not what its column type promised. */
export const encodeAny: ValueEncoder = jsonOfValue;

export const encodeBoolean: ValueEncoder = (v) =>
  typeof v === 'boolean' ? (v ? 'true' : 'false') : typeof v === 'number' ? (v === 0 ? 'false' : 'true') : encodeAny(v);

/** tinyint/smallint/int as numbers; bigint as the driver's exact digit string, unquoted. */
export const encodeInteger: ValueEncoder = (v) =>
  typeof v === 'number' ? String(v) : typeof v === 'string' && /^-?\d+$/.test(v) ? v : encodeAny(v);

/** float: the double itself; String() is its shortest round-trip text (SQL Server stores no NaN or infinities). */
export const encodeFloat: ValueEncoder = (v) => (typeof v === 'number' ? jsonNumber(v) : encodeAny(v));

/** real: tedious widens the single to a double (0.1 → 0.10000000149011612); its shortest single text. */
export const encodeReal: ValueEncoder = (v) => (typeof v === 'number' ? float32Text(v) : encodeAny(v));

/** datetime2/datetime/smalldatetime: `yyyy-mm-dd hh:mm:ss[.f…]` → ISO `T`, no offset. */
export const encodeDateTime: ValueEncoder = (v) => (typeof v === 'string' ? quoted(isoDateTime(v)) : encodeAny(v));

/** datetimeoffset: `yyyy-mm-dd hh:mm:ss[.f…] +hh:mm` → `yyyy-mm-ddThh:mm:ss[.f…]+hh:mm`, the stored offset kept. */
export const encodeDateTimeOffset: ValueEncoder = (v) => {
  if (typeof v !== 'string') return encodeAny(v);
  return quoted(isoDateTime(v).replace(/ (?=[+-]\d{2}:\d{2}$)/, ''));
};

/** binary/varbinary/image/rowversion as base64. */
export const encodeBinary: ValueEncoder = (v) => (Buffer.isBuffer(v) ? base64String(v) : encodeAny(v));

const ENCODERS: Readonly<Record<SqlServerValueKind, ValueEncoder>> = {
  boolean: encodeBoolean,
  integer: encodeInteger,
  bigint: encodeInteger,
  // decimal/numeric/money: the server's exact text as a string; it needs no escaping.
  decimal: jsonOfPlainText,
  money: jsonOfPlainText,
  float: encodeFloat,
  real: encodeReal,
  // date (`yyyy-mm-dd`) and time (`hh:mm:ss[.fffffff]`): the server text as is.
  date: jsonOfPlainText,
  time: jsonOfPlainText,
  datetime2: encodeDateTime,
  datetime: encodeDateTime,
  smalldatetime: encodeDateTime,
  datetimeoffset: encodeDateTimeOffset,
  binary: encodeBinary,
  // Character types, xml, uniqueidentifier, CLR and sql_variant text: strings, which encodeAny renders as JSON strings.
  uuid: encodeAny,
  text: encodeAny,
  'long-text': encodeAny,
  xml: encodeAny,
  clr: encodeAny,
  variant: encodeAny,
  // SQL Server 2025 `json`: valid by construction, but embedded only after a parse check, since one
  // malformed document would corrupt the whole result (it is then kept as a string).
  json: jsonOfCheckedDocument,
  other: encodeAny,
};

export const encoderFor = kindLookup(ENCODERS, encodeAny);

export const createBatchRenderer = kindBatchRenderer(kindOfColumn, encoderFor);
