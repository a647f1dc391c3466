import type { Connection, Query } from 'mysql2';
import type { RawRow } from './mysql-value-encoders.js';

/*
 * The one place that reaches into mysql2 (3.x) to read result rows as bytes. It relies on:
 * - lib/commands/query.js: once the column definitions are read, `fieldsEOF` returns `this.row`
 *   as the next state, and every later packet goes to the state function the previous one
 *   returned. An own `row` on the command instance therefore receives each row packet; on the
 *   EOF packet it hands over to `Query.prototype.row`, which ends the command as usual (an error
 *   packet never gets here: Command.execute handles it first);
 * - lib/packets/packet.js: a packet's `buffer`, `offset` (at the first value), `end` and
 *   `isEOF()`; lib/packet_parser.js reassembles a row over 16 MiB into one packet first. The
 *   packet object is reused for the next one, so it is read during the call only;
 * - `_rowParser.next(packet, _currentFields, options)`, mysql2's own row parser (built before the
 *   first row), for the rare value only mysql2 can decode (wireValueClass `mysql2`);
 * - lib/parsers/text_parser.js `readCodeFor`, mirrored by wireValueClass for this connector's
 *   options (checked by rawRowsSupported against `connection.config`).
 * If mysql2 delivers a parsed row anyway (its `result` event), the hook is not in effect and the
 * read fails instead of losing rows. test/integration/mysql-raw-rows.spec.ts pins all of this.
 */

/** A text-protocol row: length-encoded values in `buffer[offset, end)`. Valid during the call only. */
export interface RowPacket {
  readonly buffer: Buffer;
  readonly offset: number;
  readonly end: number;
}

/** What the renderer reads from a result field (mysql2's ColumnDefinition). */
export interface WireField {
  readonly columnType?: number;
  readonly characterSet?: number;
  readonly encoding?: string;
  /** MariaDB's extended metadata: `json` for its JSON alias. */
  readonly extendedFormat?: string;
}

/**
 * What mysql2, with this connector's options, makes of a field's bytes:
 * - `int`: a number from parseIntNoBigCheck (TINYINT, SMALLINT, MEDIUMINT, INT, YEAR);
 * - `latin1`: a string decoded as `binary` (BIGINT digits);
 * - `ascii`: a string decoded as `ascii` (DECIMAL, DATE, DATETIME, TIMESTAMP, TIME);
 * - `utf8`: a string decoded as UTF-8 (text in a UTF-8 character set, MySQL's JSON);
 * - `bytes`: a Buffer view of the bytes (binary character set: BINARY, BLOB, BIT);
 * - `mysql2`: anything else (FLOAT/DOUBLE/NULL/GEOMETRY/VECTOR wire types, text in another
 *   character set): left to mysql2's own parser.
 */
export type WireValueClass = 'int' | 'latin1' | 'ascii' | 'utf8' | 'bytes' | 'mysql2';

/** mysql2's lib/constants/types.js and the binary character set's number. */
const T = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  NULL: 6,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  VECTOR: 242,
  JSON: 245,
  NEWDECIMAL: 246,
  GEOMETRY: 255,
} as const;
const BINARY_CHARSET = 63;

/** The wire types whose value class does not depend on the character set. */
const TYPES_OF_CLASS: readonly (readonly [WireValueClass, readonly number[]])[] = [
  ['int', [T.TINY, T.SHORT, T.LONG, T.INT24, T.YEAR]],
  ['latin1', [T.LONGLONG]],
  ['ascii', [T.DECIMAL, T.NEWDECIMAL, T.DATE, T.DATETIME, T.TIMESTAMP, T.TIME]],
  ['utf8', [T.JSON]],
  ['mysql2', [T.FLOAT, T.DOUBLE, T.NULL, T.VECTOR, T.GEOMETRY]],
];
const CLASS_OF_TYPE = new Map(TYPES_OF_CLASS.flatMap(([valueClass, types]) => types.map((type) => [type, valueClass] as const)));

/** mysql2's readCodeFor, given supportBigNumbers, bigNumberStrings, dateStrings, jsonStrings and no decimalNumbers. */
export function wireValueClass(field: WireField): WireValueClass {
  if (field.extendedFormat === 'json') return field.encoding === 'utf8' ? 'utf8' : 'mysql2';
  if (field.columnType === undefined) return 'mysql2';
  const byType = CLASS_OF_TYPE.get(field.columnType);
  if (byType !== undefined) return byType;
  if (field.characterSet === BINARY_CHARSET) return 'bytes';
  return field.encoding === 'utf8' ? 'utf8' : 'mysql2';
}

interface ConfigInternals {
  readonly supportBigNumbers?: unknown;
  readonly bigNumberStrings?: unknown;
  readonly dateStrings?: unknown;
  readonly decimalNumbers?: unknown;
  readonly jsonStrings?: unknown;
  readonly typeCast?: unknown;
}

/** The connection's value options are the ones wireValueClass mirrors (connectionOptions sets them). */
export function rawRowsSupported(connection: Connection): boolean {
  const c = (connection as unknown as { config?: ConfigInternals }).config;
  return (
    c !== undefined &&
    c.supportBigNumbers === true &&
    c.bigNumberStrings === true &&
    c.dateStrings === true &&
    c.jsonStrings === true &&
    c.decimalNumbers !== true &&
    c.typeCast === true
  );
}

interface PacketInternals extends RowPacket {
  isEOF(): boolean;
}

type State = (this: QueryInternals, packet: PacketInternals, connection: unknown) => unknown;

interface QueryInternals {
  row?: State;
  fieldsEOF?: unknown;
  _rowParser?: { next(packet: RowPacket, fields: unknown, options: unknown): RawRow } | null;
  _currentFields?: unknown;
  options?: unknown;
}

/** mysql2's parsed values of a row packet, for the values wireValueClass leaves to it. */
export interface RawRowSource {
  parse(packet: RowPacket): RawRow;
}

/**
 * Routes the row packets of `query` (just created by `connection.query`, no callback) to `onRow`
 * instead of mysql2's parser. Returns undefined, leaving the query untouched, when the connection's
 * options or mysql2's command are not what this relies on; the caller then reads parsed rows.
 */
export function interceptRawRows(
  connection: Connection,
  query: Query,
  onRow: (packet: RowPacket) => void,
  onBypass: (error: Error) => void,
): RawRowSource | undefined {
  const command = query as unknown as QueryInternals;
  const prototype = Object.getPrototypeOf(command) as QueryInternals;
  const endOfRows = prototype.row;
  if (!rawRowsSupported(connection) || typeof endOfRows !== 'function' || typeof prototype.fieldsEOF !== 'function') return undefined;
  const rawRow: State = function (packet, conn) {
    if (packet.isEOF()) return endOfRows.call(this, packet, conn);
    onRow(packet);
    return rawRow;
  };
  command.row = rawRow;
  query.on('result', () => onBypass(new Error('mysql2 parsed a row the raw row hook should have read (see mysql-raw-rows.ts)')));
  return {
    parse(packet) {
      const parser = command._rowParser;
      if (parser === null || parser === undefined) throw new Error('mysql2 built no row parser for this result (see mysql-raw-rows.ts)');
      return parser.next(packet, command._currentFields, command.options);
    },
  };
}
