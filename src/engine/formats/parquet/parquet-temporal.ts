import type { Era } from './parquet-leaf.js';
import { ValueMismatch } from './value-mismatch.js';

/**
 * Dates and timestamps as the engines render them (docs/value-mapping.md): ISO-8601 `YYYY-MM-DD`,
 * `YYYY-MM-DDTHH:MM:SS[.f…]`, with `Z` on UTC columns; PostgreSQL's own text for BC values
 * (`0044-03-15 12:00:00+00 BC`); Oracle's negative BC years. Days are counted in the proleptic
 * Gregorian calendar from 1970-01-01, as Parquet's DATE and TIMESTAMP are.
 */
const DATE_TIME = /^(-?)(\d{4,})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?)?(Z|[+-]\d\d(?::?\d\d){0,2})?( BC)?$/;

const SECONDS_PER_DAY = 86_400;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

interface Parsed {
  readonly days: number;
  /** Seconds into the day; null for a bare date. */
  readonly seconds: number | null;
  /** The fraction's digits as written, '' when none. */
  readonly fraction: string;
  readonly utc: boolean;
}

/** Days from 1970-01-01 of a proleptic Gregorian date with an astronomical year (1 BC is year 0). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function parse(text: string, era: Era): Parsed {
  if (text === 'infinity' || text === '-infinity') throw new ValueMismatch(`is ${text}, which a Parquet date or timestamp cannot hold`);
  const m = DATE_TIME.exec(text);
  if (m === null) throw new ValueMismatch('is not an ISO-8601 date or timestamp');
  const [, minus, yearText, monthText, dayText, hh, mi, ss, fraction = '', zone, bc] = m;
  const written = Number(yearText);
  let year: number;
  if (bc !== undefined) {
    if (era !== 'pg' || minus !== '') throw new ValueMismatch('has an era this engine does not write');
    year = 1 - written;
  } else if (minus !== '') {
    // Oracle has no year 0: -1 is 1 BC, astronomical 0. ISO-8601's -0001 is astronomical -1.
    year = era === 'oracle' ? 1 - written : -written;
  } else {
    year = written;
  }
  const month = Number(monthText);
  const day = Number(dayText);
  const monthDays = month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1];
  if (monthDays === undefined || day < 1 || day > monthDays) throw new ValueMismatch('is not a calendar date');
  let seconds: number | null = null;
  if (hh !== undefined) {
    const [h, minute, s] = [Number(hh), Number(mi), Number(ss)];
    if (h > 23 || minute > 59 || s > 59) throw new ValueMismatch('is not a time of day');
    seconds = h * 3600 + minute * 60 + s;
  }
  // PostgreSQL's BC text carries the session's offset (`+00`): UTC is what a zone here may say.
  if (zone !== undefined && zone !== 'Z' && /[1-9]/.test(zone)) throw new ValueMismatch('has an offset other than UTC');
  return { days: daysFromCivil(year, month, day), seconds, fraction, utc: zone !== undefined };
}

/** A DATE: days since 1970-01-01. */
export function dateDays(text: string, era: Era): number {
  const parsed = parse(text, era);
  if (parsed.seconds !== null || parsed.utc) throw new ValueMismatch('is not a date without a time');
  if (parsed.days < INT32_MIN || parsed.days > INT32_MAX) throw new ValueMismatch('is outside the range of a Parquet date');
  return parsed.days;
}

/**
 * A TIMESTAMP in `unit` since 1970-01-01T00:00:00 (UTC when `utc`). A fraction finer than the unit
 * fails unless its extra digits are zeros; so does a zone on a column without one, or its absence
 * on a UTC column: the column's type promised otherwise.
 */
export function timestampValue(text: string, unit: 'MILLIS' | 'MICROS', utc: boolean, era: Era): bigint {
  const parsed = parse(text, era);
  if (parsed.seconds === null) throw new ValueMismatch('is a date without a time');
  if (parsed.utc !== utc) throw new ValueMismatch(utc ? 'has no UTC designator' : 'has a zone, which this column does not');
  const digits = unit === 'MICROS' ? 6 : 3;
  let fraction = parsed.fraction;
  if (fraction.length > digits) {
    if (!/^0*$/.test(fraction.slice(digits))) throw new ValueMismatch(`has more than ${digits} fraction digits`);
    fraction = fraction.slice(0, digits);
  }
  const scale = unit === 'MICROS' ? 1_000_000n : 1_000n;
  const value = BigInt(parsed.days * SECONDS_PER_DAY + parsed.seconds) * scale + BigInt(fraction.padEnd(digits, '0'));
  if (value < INT64_MIN || value > INT64_MAX) throw new ValueMismatch('is outside the range of a Parquet timestamp');
  return value;
}
