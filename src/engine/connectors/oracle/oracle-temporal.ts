import type { OracleColumnType } from './oracle-types.js';

/**
 * Fixed date/time formats, so neither reading nor filtering depends on the session's NLS_DATE_FORMAT
 * or NLS_TIMESTAMP_FORMAT (which views written with implicit conversions may rely on, so the
 * session leaves them alone).
 */

/**
 * The TO_CHAR format that renders a DATE/TIMESTAMP column as ISO-8601 at its precision:
 * `YYYY-MM-DD"T"HH24:MI:SS[.FFn][TZH:TZM]`. `signedYear` uses SYYYY (a BC year gets a `-`, an AD
 * year a leading space the encoder drops) for reading; LIKE filters use plain YYYY so a pattern
 * such as `2024-01%` matches the text the reader would print.
 */
export function isoFormat(type: OracleColumnType, signedYear: boolean): string {
  let format = (signedYear ? 'SYYYY' : 'YYYY') + '-MM-DD"T"HH24:MI:SS';
  if (type.kind === 'date') return format;
  const digits = type.fractionDigits ?? 6;
  if (digits > 0) format += `.FF${digits}`;
  if (type.kind === 'timestamp_tz') format += 'TZH:TZM';
  return format;
}

/** Formats the filter values are normalised to before the server parses them. */
export const DATE_BIND_FORMAT = 'YYYY-MM-DD HH24:MI:SS';
export const TIMESTAMP_BIND_FORMAT = 'YYYY-MM-DD HH24:MI:SS.FF9';
export const TIMESTAMP_TZ_BIND_FORMAT = 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM';

/** An ISO-8601 date or date-time as a filter may give it. */
export interface IsoDateTime {
  /** `YYYY-MM-DD HH24:MI:SS` (midnight for a bare date). */
  readonly seconds: string;
  /** Fraction digits padded to nine (`250000000`). */
  readonly nanos: string;
  /** `+HH:MM`, or null when the value has no zone. */
  readonly zone: string | null;
}

/** `2024-01-15`, `2024-01-15T10:20`, `2024-01-15 10:20:30.25`, `…Z`, `…+05:30`, `…-0800`, `…+01`. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:\s*(Z|[+-]\d{2}(?::?\d{2})?))?)?$/i;

export function parseIsoDateTime(value: string): IsoDateTime | null {
  const m = ISO.exec(value.trim());
  if (m === null) return null;
  const [, y, mo, d, hh = '00', mi = '00', ss = '00', fraction = '', zone] = m;
  let offset: string | null = null;
  if (zone !== undefined) {
    if (zone.toUpperCase() === 'Z') offset = '+00:00';
    else {
      const digits = zone.slice(1).replace(':', '');
      offset = `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2) || '00'}`;
    }
  }
  return { seconds: `${y}-${mo}-${d} ${hh}:${mi}:${ss}`, nanos: fraction.padEnd(9, '0'), zone: offset };
}

/** How one filter value is handed to the server for a date/time column: SQL around `:n`, and the bound text. */
export interface TemporalOperand {
  readonly sql: (placeholder: string) => string;
  readonly value: string;
}

/**
 * A string compared with a DATE/TIMESTAMP column compares as a date (as `$n::timestamp` does on
 * PostgreSQL), never as text:
 * - DATE: TO_DATE when there is no fraction (an index on the column stays usable), TO_TIMESTAMP
 *   otherwise (Oracle then compares the DATE as a timestamp, exactly);
 * - TIMESTAMP: TO_TIMESTAMP;
 * - WITH (LOCAL) TIME ZONE: a zoned value is an instant (TO_TIMESTAMP_TZ); an unzoned one is read
 *   in the session time zone, UTC.
 * A zone on a value for a zone-less column is dropped, as PostgreSQL's `timestamp` does.
 * Returns null when the text is not an ISO-8601 date.
 */
export function temporalOperand(type: OracleColumnType, text: string): TemporalOperand | null {
  const parsed = parseIsoDateTime(text);
  if (parsed === null) return null;
  const zoned = type.kind === 'timestamp_tz' || type.kind === 'timestamp_ltz';
  if (zoned && parsed.zone !== null) {
    return {
      sql: (p) => `TO_TIMESTAMP_TZ(${p}, '${TIMESTAMP_TZ_BIND_FORMAT}')`,
      value: `${parsed.seconds}.${parsed.nanos} ${parsed.zone}`,
    };
  }
  if (type.kind === 'date' && /^0+$/.test(parsed.nanos)) {
    return { sql: (p) => `TO_DATE(${p}, '${DATE_BIND_FORMAT}')`, value: parsed.seconds };
  }
  return { sql: (p) => `TO_TIMESTAMP(${p}, '${TIMESTAMP_BIND_FORMAT}')`, value: `${parsed.seconds}.${parsed.nanos}` };
}
