import { describe, expect, it } from 'vitest';
import type { FilterCondition } from '../../request/data-request.js';
import { buildWhere, likePattern, MAX_BINDS, MAX_IN_LIST, OracleFilterError } from './oracle-filter.js';
import { OracleStatementBuilder } from './oracle-statement-builder.js';
import { oracleColumn } from './testing/oracle-columns.js';
import { valuesStayOutOfSqlCheck } from '../testing/filter-checks.js';

const col = oracleColumn;

const COLUMNS = [
  col('QTY', 'NUMBER', 10, 0),
  col('AMOUNT', 'NUMBER', 12, 2),
  col('NAME', 'VARCHAR2'),
  col('CODE', 'CHAR'),
  col('NCODE', 'NCHAR'),
  col('NOTE', 'CLOB'),
  col('NNOTE', 'NCLOB'),
  col('DAY', 'DATE'),
  col('AT', 'TIMESTAMP(3)', null, 3),
  col('AT_TZ', 'TIMESTAMP(6) WITH TIME ZONE', null, 6),
  col('AT_LTZ', 'TIMESTAMP(6) WITH LOCAL TIME ZONE', null, 6),
  col('RATIO', 'BINARY_DOUBLE'),
  col('SINGLE', 'BINARY_FLOAT'),
  col('OK', 'BOOLEAN'),
  col('DOC', 'JSON'),
  col('Mixed "Col"', 'VARCHAR2'),
];

const where = (filters: Record<string, FilterCondition>) => {
  const sql = new OracleStatementBuilder();
  buildWhere(filters, COLUMNS, sql);
  const { text, binds } = sql.build();
  return { sql: text, binds };
};

const TS = "'YYYY-MM-DD HH24:MI:SS.FF9'";
const TSTZ = "'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM'";
const DATE = "'YYYY-MM-DD HH24:MI:SS'";

describe('Oracle filter translation', () => {
  it.each<[string, Record<string, FilterCondition>, string, unknown[]]>([
    ['eq one value', { QTY: { eq: [5] } }, ' WHERE "QTY" = :1', [5]],
    ['eq several values → IN', { QTY: { eq: [1, 2, 3] } }, ' WHERE "QTY" IN (:1, :2, :3)', [1, 2, 3]],
    ['eq [null] → IS NULL', { QTY: { eq: [null] } }, ' WHERE "QTY" IS NULL', []],
    ['eq with null in the list → = … OR IS NULL', { QTY: { eq: [1, null] } }, ' WHERE ("QTY" = :1 OR "QTY" IS NULL)', [1]],
    ['ne one value', { QTY: { ne: [5] } }, ' WHERE "QTY" <> :1', [5]],
    ['ne [null] → IS NOT NULL', { QTY: { ne: [null] } }, ' WHERE "QTY" IS NOT NULL', []],
    ['ne several → NOT IN', { QTY: { ne: [1, 2] } }, ' WHERE "QTY" NOT IN (:1, :2)', [1, 2]],
    ['gt', { QTY: { gt: [1] } }, ' WHERE "QTY" > :1', [1]],
    ['gte', { QTY: { gte: [1] } }, ' WHERE "QTY" >= :1', [1]],
    ['lt', { QTY: { lt: [1] } }, ' WHERE "QTY" < :1', [1]],
    [
      'lte with a numeric string → TO_NUMBER, exact',
      { QTY: { lte: ['9007199254740993'] } },
      ' WHERE "QTY" <= TO_NUMBER(:1)',
      ['9007199254740993'],
    ],
    ['decimal string against NUMBER(12,2)', { AMOUNT: { gt: ['10.50'] } }, ' WHERE "AMOUNT" > TO_NUMBER(:1)', ['10.50']],
    ['boolean against NUMBER(1) → 1/0', { QTY: { eq: [true, false] } }, ' WHERE "QTY" IN (:1, :2)', [1, 0]],
    ['between, inclusive', { QTY: { between: [10, 40] } }, ' WHERE "QTY" BETWEEN :1 AND :2', [10, 40]],
    [
      'between dates given as strings',
      { DAY: { between: ['2026-02-28', '2026-04-30'] } },
      ` WHERE "DAY" BETWEEN TO_DATE(:1, ${DATE}) AND TO_DATE(:2, ${DATE})`,
      ['2026-02-28 00:00:00', '2026-04-30 00:00:00'],
    ],
    [
      'DATE with a fraction compares as a timestamp',
      { DAY: { lt: ['2026-02-28T10:00:00.5'] } },
      ` WHERE "DAY" < TO_TIMESTAMP(:1, ${TS})`,
      ['2026-02-28 10:00:00.500000000'],
    ],
    ['DATE drops a zone', { DAY: { gte: ['2026-02-28T10:00:00+02:00'] } }, ` WHERE "DAY" >= TO_DATE(:1, ${DATE})`, ['2026-02-28 10:00:00']],
    ['TIMESTAMP from a date', { AT: { gte: ['2026-01-15'] } }, ` WHERE "AT" >= TO_TIMESTAMP(:1, ${TS})`, ['2026-01-15 00:00:00.000000000']],
    [
      'TIMESTAMP with space separator and millis',
      { AT: { eq: ['2026-01-15 08:30:00.250'] } },
      ` WHERE "AT" = TO_TIMESTAMP(:1, ${TS})`,
      ['2026-01-15 08:30:00.250000000'],
    ],
    [
      'TIMESTAMP WITH TIME ZONE, zoned value → an instant',
      { AT_TZ: { lt: ['2026-01-15T10:00:00Z'] } },
      ` WHERE "AT_TZ" < TO_TIMESTAMP_TZ(:1, ${TSTZ})`,
      ['2026-01-15 10:00:00.000000000 +00:00'],
    ],
    [
      'TIMESTAMP WITH TIME ZONE, compact offset',
      { AT_TZ: { gt: ['2026-01-15T10:00-0530'] } },
      ` WHERE "AT_TZ" > TO_TIMESTAMP_TZ(:1, ${TSTZ})`,
      ['2026-01-15 10:00:00.000000000 -05:30'],
    ],
    [
      'TIMESTAMP WITH LOCAL TIME ZONE, hour offset',
      { AT_LTZ: { gt: ['2026-01-15T10:00:00+01'] } },
      ` WHERE "AT_LTZ" > TO_TIMESTAMP_TZ(:1, ${TSTZ})`,
      ['2026-01-15 10:00:00.000000000 +01:00'],
    ],
    [
      'zoned column, unzoned value → read as UTC (session)',
      { AT_TZ: { lt: ['2026-01-15'] } },
      ` WHERE "AT_TZ" < TO_TIMESTAMP(:1, ${TS})`,
      ['2026-01-15 00:00:00.000000000'],
    ],
    ['in', { NAME: { in: ['a', 'b'] } }, ' WHERE "NAME" IN (:1, :2)', ['a', 'b']],
    ['in, one value', { NAME: { in: ['a'] } }, ' WHERE "NAME" = :1', ['a']],
    ['in with null', { NAME: { in: ['a', 'b', null] } }, ' WHERE ("NAME" IN (:1, :2) OR "NAME" IS NULL)', ['a', 'b']],
    ['in [null] only', { NAME: { in: [null] } }, ' WHERE "NAME" IS NULL', []],
    ['nin', { NAME: { nin: ['a', 'b'] } }, ' WHERE "NAME" NOT IN (:1, :2)', ['a', 'b']],
    ['nin with null → <> … AND IS NOT NULL', { NAME: { nin: ['a', null] } }, ' WHERE ("NAME" <> :1 AND "NAME" IS NOT NULL)', ['a']],
    ['numbers and booleans against text are bound as text', { NAME: { eq: [5, true] } }, ' WHERE "NAME" IN (:1, :2)', ['5', 'true']],
    ['like on text, with ESCAPE so \\% is a literal %', { NAME: { like: ['50\\%%'] } }, ' WHERE "NAME" LIKE :1 ESCAPE \'\\\'', ['50\\%%']],
    ['like with % and _', { NAME: { like: ['%ta_'] } }, ' WHERE "NAME" LIKE :1 ESCAPE \'\\\'', ['%ta_']],
    ['like on a NUMBER matches its text', { QTY: { like: [1] } }, ' WHERE TO_CHAR("QTY") LIKE :1 ESCAPE \'\\\'', ['1']],
    [
      'like on a DATE matches the rendered ISO text',
      { DAY: { like: ['2026-01%'] } },
      ` WHERE TO_CHAR("DAY", 'YYYY-MM-DD"T"HH24:MI:SS') LIKE :1 ESCAPE '\\'`,
      ['2026-01%'],
    ],
    [
      'like on TIMESTAMP(3)',
      { AT: { like: ['%.250'] } },
      ` WHERE TO_CHAR("AT", 'YYYY-MM-DD"T"HH24:MI:SS.FF3') LIKE :1 ESCAPE '\\'`,
      ['%.250'],
    ],
    ['like on a CLOB works on the LOB', { NOTE: { like: ['%x%'] } }, ' WHERE "NOTE" LIKE :1 ESCAPE \'\\\'', ['%x%']],
    [
      'like on JSON matches its serialized text',
      { DOC: { like: ['%"a"%'] } },
      ' WHERE JSON_SERIALIZE("DOC" RETURNING CLOB) LIKE :1 ESCAPE \'\\\'',
      ['%"a"%'],
    ],
    ['like null matches nothing', { NAME: { like: [null] } }, ' WHERE "NAME" LIKE :1 ESCAPE \'\\\'', [null]],
    ['CHAR binds as CHAR: blank-padded comparison', { CODE: { eq: ['ab'] } }, ' WHERE "CODE" = :1', [{ charType: 'char', value: 'ab' }]],
    [
      'NCHAR binds as NCHAR',
      { NCODE: { in: ['x', 'y'] } },
      ' WHERE "NCODE" IN (:1, :2)',
      [
        { charType: 'nchar', value: 'x' },
        { charType: 'nchar', value: 'y' },
      ],
    ],
    [
      'CLOB equality through DBMS_LOB.COMPARE',
      { NOTE: { eq: ['second'] } },
      ' WHERE DBMS_LOB.COMPARE("NOTE", TO_CLOB(:1)) = 0',
      ['second'],
    ],
    [
      'CLOB IN → ORed compares',
      { NOTE: { in: ['a', 'b', null] } },
      ' WHERE (DBMS_LOB.COMPARE("NOTE", TO_CLOB(:1)) = 0 OR DBMS_LOB.COMPARE("NOTE", TO_CLOB(:2)) = 0 OR "NOTE" IS NULL)',
      ['a', 'b'],
    ],
    [
      'CLOB NOT IN → ANDed compares',
      { NOTE: { nin: ['a', 'b'] } },
      ' WHERE (DBMS_LOB.COMPARE("NOTE", TO_CLOB(:1)) <> 0 AND DBMS_LOB.COMPARE("NOTE", TO_CLOB(:2)) <> 0)',
      ['a', 'b'],
    ],
    ['CLOB IS NULL needs no compare', { NOTE: { eq: [null] } }, ' WHERE "NOTE" IS NULL', []],
    [
      'CLOB between',
      { NOTE: { between: ['a', 'm'] } },
      ' WHERE (DBMS_LOB.COMPARE("NOTE", TO_CLOB(:1)) >= 0 AND DBMS_LOB.COMPARE("NOTE", TO_CLOB(:2)) <= 0)',
      ['a', 'm'],
    ],
    ['NCLOB compares with an NCLOB', { NNOTE: { gt: ['a'] } }, ' WHERE DBMS_LOB.COMPARE("NNOTE", TO_NCLOB(:1)) > 0', ['a']],
    [
      'BINARY_DOUBLE: numbers bound, strings converted',
      { RATIO: { between: [0.5, '1e3'] } },
      ' WHERE "RATIO" BETWEEN :1 AND TO_BINARY_DOUBLE(:2)',
      [0.5, '1e3'],
    ],
    ['BINARY_FLOAT string', { SINGLE: { gt: ['0.1'] } }, ' WHERE "SINGLE" > TO_BINARY_FLOAT(:1)', ['0.1']],
    [
      'BOOLEAN: booleans, PostgreSQL boolean texts, numbers',
      { OK: { in: [true, 'f', 'YES', 0] } },
      ' WHERE "OK" IN (:1, :2, :3, :4)',
      [true, false, true, false],
    ],
    ['BOOLEAN: unknown text passed on for the server to refuse', { OK: { eq: ['maybe'] } }, ' WHERE "OK" = :1', ['maybe']],
    ['quoted column name', { 'Mixed "Col"': { eq: ['v'] } }, ' WHERE "Mixed ""Col""" = :1', ['v']],
    ['null in a comparison is bound and matches nothing', { AT: { gt: [null] } }, ' WHERE "AT" > :1', [null]],
    ['null bound in between', { QTY: { between: [null, 5] } }, ' WHERE "QTY" BETWEEN :1 AND :2', [null, 5]],
  ])('%s', (_label, filters, sql, binds) => {
    expect(where(filters)).toEqual({ sql, binds });
  });

  it('ANDs operators of one field in a fixed order, and fields in order, numbering binds in text order', () => {
    expect(where({ QTY: { like: ['1%'], lt: [9], gt: [1] }, NAME: { eq: ['x'] } })).toEqual({
      sql: ' WHERE "QTY" > :1 AND "QTY" < :2 AND TO_CHAR("QTY") LIKE :3 ESCAPE \'\\\' AND "NAME" = :4',
      binds: [1, 9, '1%', 'x'],
    });
  });

  it('splits IN lists above Oracle’s 1000-expression limit', () => {
    const values = Array.from({ length: MAX_IN_LIST + 2 }, (_, i) => i);
    const { sql, binds } = where({ QTY: { in: values } });
    expect(binds).toEqual(values);
    expect(sql).toMatch(/^ WHERE \("QTY" IN \(:1, .*, :1000\) OR "QTY" IN \(:1001, :1002\)\)$/);
    const negated = where({ QTY: { nin: [...values, null] } }).sql;
    expect(negated).toMatch(/^ WHERE \("QTY" NOT IN \(:1, .*:1000\) AND "QTY" NOT IN \(:1001, :1002\) AND "QTY" IS NOT NULL\)$/);
  });

  describe('past the 65,535-bind limit', () => {
    const range = (length: number) => Array.from({ length }, (_, i) => i);

    it('binds every value while the statement stays within the limit', () => {
      const { sql, binds } = where({ QTY: { in: range(MAX_BINDS - 1) }, NAME: { eq: ['x'] } });
      expect(binds).toHaveLength(MAX_BINDS);
      expect(sql).toContain(':65535');
    });

    it('writes integer list values on numeric columns as NUMBER literals, in IN lists of 1000', () => {
      const values = range(70_000);
      const { sql, binds } = where({ NAME: { eq: ['x'] }, QTY: { in: [...values, null] } });
      expect(binds).toEqual(['x']);
      expect(sql.startsWith(' WHERE "NAME" = :1 AND ("QTY" IN (0, 1, 2, ')).toBe(true);
      expect(sql.match(/"QTY" IN \(/g)).toHaveLength(70);
      expect(sql).toContain(', 998, 999) OR "QTY" IN (1000, 1001, ');
      expect(sql.endsWith(', 69999) OR "QTY" IS NULL)')).toBe(true);
    });

    it('does the same for nin, integer digit strings, negative numbers and booleans, and leaves other values bound', () => {
      const values = [...range(69_998).map((i) => (i % 2 === 0 ? i : ` ${-i} `)), true, '9007199254740993', '1.5'];
      const { sql, binds } = where({ AMOUNT: { nin: values } });
      expect(binds).toEqual(['1.5']);
      expect(sql).toMatch(/^ WHERE \("AMOUNT" NOT IN \(0, -1, 2, -3, /);
      // 70,001 values: the last IN list holds the one left bound.
      expect(sql.endsWith(', 1, 9007199254740993) AND "AMOUNT" NOT IN (TO_NUMBER(:1)))')).toBe(true);
    });

    it('keeps BINARY_DOUBLE digit strings bound (TO_BINARY_DOUBLE rounds its own way), and refuses what still needs too many binds', () => {
      expect(() => where({ RATIO: { in: range(70_000).map(String) } })).toThrow(OracleFilterError);
      expect(where({ RATIO: { in: range(70_000) } }).binds).toEqual([]);
    });

    it('refuses, with the count, a statement still over the limit (text values are never written into the SQL)', () => {
      const names = range(70_000).map((i) => `n${i}`);
      expect(() => where({ NAME: { in: names } })).toThrow(
        new OracleFilterError(
          'the filters need 70000 bind values, more than the 65535 Oracle takes in one statement (only integers on numeric columns can be written into it instead)',
        ),
      );
      const sql = new OracleStatementBuilder().append('SELECT 1 FROM t');
      expect(() => buildWhere({ NAME: { in: names } }, COLUMNS, sql)).toThrow(OracleFilterError);
      expect(sql.build()).toEqual({ text: 'SELECT 1 FROM t', binds: [] });
    });
  });

  it('skips empty operator lists and appends nothing without filters', () => {
    expect(where({ QTY: { eq: [] } })).toEqual({ sql: '', binds: [] });
    expect(where({})).toEqual({ sql: '', binds: [] });
  });

  valuesStayOutOfSqlCheck((filters) => {
    const { sql, binds } = where(filters);
    return { sql, values: binds };
  }, 'NAME');

  it('refuses a non-date value for a date column, naming the column and value', () => {
    expect(() => where({ DAY: { eq: ['15/01/2026'] } })).toThrow(OracleFilterError);
    expect(() => where({ DAY: { eq: ['15/01/2026'] } })).toThrow(
      /filter value "15\/01\/2026" for DATE column "DAY" is not an ISO-8601 date/,
    );
    expect(() => where({ AT: { gt: [20260115] } })).toThrow(/filter value 20260115 for TIMESTAMP\(3\) column "AT"/);
  });

  it('binds values as given for a column without engine type (booleans as 1/0)', () => {
    const sql = new OracleStatementBuilder();
    buildWhere({ X: { eq: [1, 'a', true] } }, [{ name: 'X', dataType: 'NUMBER' }], sql);
    expect(sql.build()).toEqual({ text: ' WHERE "X" IN (:1, :2, :3)', binds: [1, 'a', 1] });
  });
});

describe('LIKE patterns with PostgreSQL escape rules', () => {
  it.each<[string, string]>([
    ['abc%', 'abc%'],
    ['50\\%', '50\\%'],
    ['a\\_b', 'a\\_b'],
    ['back\\\\slash', 'back\\\\slash'],
    // PostgreSQL reads \x as x; Oracle would refuse the escape (ORA-01424).
    ['\\a\\b', 'ab'],
    // A trailing escape is a literal backslash.
    ['end\\', 'end\\\\'],
  ])('%s → %s', (input, output) => {
    expect(likePattern(input)).toBe(output);
  });
});
