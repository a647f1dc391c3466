import { describe, expect, it } from 'vitest';
import type { CursorKind, CursorRange } from '../../incremental/cursor-range.js';
import { rangeRead } from '../../incremental/range-filters.js';
import type { ColumnInfo, TableInfo } from '../shared/engine-connector.js';
import { OracleFilterError } from './oracle-filter.js';
import { boundStatement, boundText, cursorKindOf } from './oracle-range-read.js';
import { buildSelect } from './oracle-sql.js';
import { OracleConnector } from './oracle.connector.js';
import { oracleColumn } from './testing/oracle-columns.js';

const col = oracleColumn;
const range = (column: ColumnInfo, kind: CursorKind, extra: Partial<CursorRange> = {}): CursorRange => ({ column, kind, ...extra });

describe('Oracle cursor kinds', () => {
  it.each([
    ['NUMBER(10)', col('C', 'NUMBER', 10, 0), 'integer'],
    ['INTEGER', col('C', 'NUMBER', null, 0), 'integer'],
    ['NUMBER(5,-2)', col('C', 'NUMBER', 5, -2), 'integer'],
    ['NUMBER(12,2)', col('C', 'NUMBER', 12, 2), 'decimal'],
    ['NUMBER', col('C', 'NUMBER'), 'decimal'],
    ['FLOAT(126)', col('C', 'FLOAT', 126), 'decimal'],
    ['DATE', col('C', 'DATE'), 'timestamp'],
    ['TIMESTAMP(6)', col('C', 'TIMESTAMP(6)', null, 6), 'timestamp'],
    ['TIMESTAMP(9)', col('C', 'TIMESTAMP(9)', null, 9), 'timestamp'],
    ['TIMESTAMP(3) WITH TIME ZONE', col('C', 'TIMESTAMP(3) WITH TIME ZONE', null, 3), 'timestamptz'],
    ['TIMESTAMP(6) WITH LOCAL TIME ZONE', col('C', 'TIMESTAMP(6) WITH LOCAL TIME ZONE', null, 6), 'timestamptz'],
  ])('%s is a %s cursor', (_type, column, kind) => {
    expect(new OracleConnector().cursorKind(column)).toBe(kind);
  });

  it.each([
    'BINARY_FLOAT',
    'BINARY_DOUBLE',
    'VARCHAR2',
    'CHAR',
    'CLOB',
    'RAW',
    'BLOB',
    'INTERVAL DAY(2) TO SECOND(6)',
    'ROWID',
    'JSON',
    'BOOLEAN',
  ])('%s cannot be a cursor', (dataType) => {
    expect(cursorKindOf(col('C', dataType))).toBeNull();
  });

  it('refuses a column without engine type info', () => {
    expect(cursorKindOf({ name: 'C', dataType: 'NUMBER' })).toBeNull();
  });
});

describe('Oracle bound statement', () => {
  const ID = col('ID', 'NUMBER', 19, 0);
  const AMOUNT = col('AMOUNT', 'NUMBER', 12, 2);
  const DAY = col('DAY', 'DATE');
  const AT = col('AT', 'TIMESTAMP(9)', null, 9);
  const ZONED = col('ZONED', 'TIMESTAMP(3) WITH TIME ZONE', null, 3);
  const LOCAL = col('LOCAL', 'TIMESTAMP(6) WITH LOCAL TIME ZONE', null, 6);
  const TABLE: TableInfo = {
    schema: 'APP',
    name: 'EVENTS',
    key: 'APP.EVENTS',
    columns: [ID, AMOUNT, DAY, AT, ZONED, LOCAL],
    primaryKey: ['ID'],
  };

  it('takes the maximum over the whole table, read as the column is read, with no lower bound on a first run', () => {
    expect(boundStatement(TABLE, range(ID, 'integer'))).toEqual({
      text: 'SELECT "ID" FROM (SELECT MAX(t."ID") AS "ID" FROM "APP"."EVENTS" t)',
      binds: [],
    });
    expect(boundStatement(TABLE, range(AT, 'timestamp')).text).toBe(
      `SELECT TO_CHAR("AT", 'SYYYY-MM-DD"T"HH24:MI:SS.FF9') AS "AT" FROM (SELECT MAX(t."AT") AS "AT" FROM "APP"."EVENTS" t)`,
    );
  });

  it('compares the bound with the mark (exclusive) or the starting value (inclusive) as a filter of the column would', () => {
    expect(boundStatement(TABLE, range(AMOUNT, 'decimal', { after: '10.50' }))).toEqual({
      text: 'SELECT "AMOUNT" FROM (SELECT MAX(t."AMOUNT") AS "AMOUNT" FROM "APP"."EVENTS" t) WHERE "AMOUNT" > TO_NUMBER(:1)',
      binds: ['10.50'],
    });
    expect(boundStatement(TABLE, range(DAY, 'timestamp', { from: '2024-01-01' }))).toEqual({
      text:
        `SELECT TO_CHAR("DAY", 'SYYYY-MM-DD"T"HH24:MI:SS') AS "DAY" FROM (SELECT MAX(t."DAY") AS "DAY" FROM "APP"."EVENTS" t)` +
        ` WHERE "DAY" >= TO_DATE(:1, 'YYYY-MM-DD HH24:MI:SS')`,
      binds: ['2024-01-01 00:00:00'],
    });
    expect(boundStatement(TABLE, range(AT, 'timestamp', { after: '2024-01-01T10:00:00.123456789' })).binds).toEqual([
      '2024-01-01 10:00:00.123456789',
    ]);
    expect(boundStatement(TABLE, range(ZONED, 'timestamptz', { after: '2024-01-01T10:00:00.123+05:30' }))).toMatchObject({
      text: expect.stringMatching(/ WHERE "ZONED" > TO_TIMESTAMP_TZ\(:1, 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM'\)$/),
      binds: ['2024-01-01 10:00:00.123000000 +05:30'],
    });
    expect(boundStatement(TABLE, range(LOCAL, 'timestamptz', { after: '2024-01-01T10:00:00.000001Z' })).binds).toEqual([
      '2024-01-01 10:00:00.000001000 +00:00',
    ]);
  });

  it('subtracts the lag as an interval of seconds, which keeps the column type', () => {
    expect(boundStatement(TABLE, range(DAY, 'timestamp', { lagSeconds: 3600 })).text).toBe(
      `SELECT TO_CHAR("DAY", 'SYYYY-MM-DD"T"HH24:MI:SS') AS "DAY" FROM (SELECT MAX(t."DAY") - NUMTODSINTERVAL(3600, 'SECOND') AS "DAY" FROM "APP"."EVENTS" t)`,
    );
    expect(boundStatement(TABLE, range(ZONED, 'timestamptz', { lagSeconds: 5, after: '2024-01-01T00:00:00Z' })).text).toBe(
      `SELECT TO_CHAR("ZONED", 'SYYYY-MM-DD"T"HH24:MI:SS.FF3TZH:TZM') AS "ZONED"` +
        ` FROM (SELECT MAX(t."ZONED") - NUMTODSINTERVAL(5, 'SECOND') AS "ZONED" FROM "APP"."EVENTS" t)` +
        ` WHERE "ZONED" > TO_TIMESTAMP_TZ(:1, 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM')`,
    );
  });

  it('refuses a lag on a cursor that is not a time, and a starting value the column cannot read', () => {
    expect(() => boundStatement(TABLE, range(ID, 'integer', { lagSeconds: 5 }))).toThrow(/lagSeconds/);
    expect(() => boundStatement(TABLE, range(AT, 'timestamp', { lagSeconds: 0.5 }))).toThrow(/lagSeconds/);
    expect(() => boundStatement(TABLE, range(DAY, 'timestamp', { from: 'yesterday' }))).toThrow(OracleFilterError);
  });

  it('reads the range with the marks bound as they are', () => {
    const read = buildSelect(
      rangeRead(
        { table: TABLE, columns: [ID], range: range(ZONED, 'timestamptz', { after: '2024-01-01T00:00:00.001Z' }) },
        '2024-01-02T05:00:00.250+05:30',
      ),
    );
    expect(read.text).toBe(
      `SELECT "ID" FROM "APP"."EVENTS" t WHERE "ZONED" > TO_TIMESTAMP_TZ(:1, 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM')` +
        ` AND "ZONED" <= TO_TIMESTAMP_TZ(:2, 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM') ORDER BY t."ID"`,
    );
    expect(read.binds).toEqual(['2024-01-01 00:00:00.001000000 +00:00', '2024-01-02 05:00:00.250000000 +05:30']);
  });

  it('renders the bound with the encoder of the column, as mark text', () => {
    expect(boundText(ID, '12345678901234567890')).toBe('12345678901234567890');
    expect(boundText(AMOUNT, '10.5')).toBe('10.50');
    expect(boundText(col('N', 'NUMBER'), '.5')).toBe('0.5');
    expect(boundText(DAY, ' 2024-01-15T10:20:30')).toBe('2024-01-15T10:20:30');
    expect(boundText(AT, ' 2024-01-15T10:20:30.123456789')).toBe('2024-01-15T10:20:30.123456789');
    expect(boundText(ZONED, ' 2024-01-15T10:20:30.123+00:00')).toBe('2024-01-15T10:20:30.123Z');
    expect(boundText(ZONED, ' 2024-01-15T10:20:30.123+05:30')).toBe('2024-01-15T10:20:30.123+05:30');
    expect(boundText(LOCAL, ' 2024-01-15T10:20:30.000001')).toBe('2024-01-15T10:20:30.000001Z');
    expect(boundText(ID, null)).toBeNull();
  });
});
