import { describe, expect, it } from 'vitest';
import type { TableInfo, TableReadRequest } from '../connectors/shared/engine-connector.js';
import { renderedValueText } from './bound-text.js';
import { rangeRead } from './range-filters.js';
import { markProblems, mergeMarks } from './stream-marks.js';

const table: TableInfo = { schema: null, name: 't', key: 't', columns: [{ name: 'seq', dataType: 'bigint' }], primaryKey: [] };
const ranged = (range: object, filters?: TableReadRequest['filters']): TableReadRequest => ({
  table,
  columns: table.columns,
  filters,
  range: { column: table.columns[0], kind: 'integer', ...range },
  onRangeBound: () => undefined,
});

describe('renderedValueText', () => {
  it('keeps a number literal exactly as rendered, past 2^53 and with every decimal digit', () => {
    expect(renderedValueText(Buffer.from('{"seq":9223372036854775807}'))).toBe('9223372036854775807');
    expect(renderedValueText(Buffer.from('{"amount":99999999999999999999999999.9999999999}'))).toBe(
      '99999999999999999999999999.9999999999',
    );
  });

  it('gives a string its content (escapes decoded) and null for null', () => {
    expect(renderedValueText(Buffer.from('{"at":"2024-01-15T08:20:30.123456Z"}'))).toBe('2024-01-15T08:20:30.123456Z');
    expect(renderedValueText(Buffer.from('{"k":"a\\"b"}'))).toBe('a"b');
    expect(renderedValueText(Buffer.from('{"k":null}'))).toBeNull();
  });
});

describe('rangeRead', () => {
  it('ANDs the range with the request’s filters, on the cursor as on other columns, and drops the range', () => {
    const read = rangeRead(ranged({ after: '10' }, { seq: { ne: [12] }, other: { eq: ['x'] } }), '20');
    expect(read.filters).toEqual({ seq: { ne: [12], gt: ['10'], lte: ['20'] }, other: { eq: ['x'] } });
    expect(read.range).toBeUndefined();
    expect(read.onRangeBound).toBeUndefined();
  });

  it('is inclusive from an initial value, open below without one, and binds through the engine’s conversion', () => {
    expect(rangeRead(ranged({ from: '5' }), '9').filters).toEqual({ seq: { gte: ['5'], lte: ['9'] } });
    expect(rangeRead(ranged({}), '9', Number).filters).toEqual({ seq: { lte: [9] } });
  });
});

describe('markProblems and mergeMarks', () => {
  it('accepts well-formed marks and names each malformed one by its path', () => {
    expect(markProblems({ pg: { t: { column: 'seq', type: 'integer', value: '5' } } }, 'marks')).toEqual({});
    expect(
      markProblems(
        { pg: { a: { column: 'seq', type: 'float', value: '5' }, b: { column: 'seq', type: 'integer', value: 5 }, c: 'x' }, q: 1 },
        'marks',
      ),
    ).toEqual({
      'marks.pg.a': "a mark's type is one of integer, decimal, date, timestamp, timestamptz, objectid",
      'marks.pg.b': "a mark's value is a non-empty string",
      'marks.pg.c': 'a mark is {column, type, value}',
      'marks.q': "marks of 'q' must map tables to marks",
    });
    expect(markProblems([], 'marks')).toEqual({ marks: 'marks must map datasources to tables and their marks' });
    expect(markProblems({ pg: { t: { column: 'seq', type: 'integer', value: '5', extra: 1 } } }, 'm')).toEqual({
      'm.pg.t': "unknown member 'extra' of a mark; use column, type and value",
    });
  });

  it('replaces marks table by table and keeps the others', () => {
    const mark = (value: string) => ({ column: 'seq', type: 'integer' as const, value });
    expect(mergeMarks({ pg: { a: mark('1'), b: mark('2') }, my: { c: mark('3') } }, { pg: { b: mark('9') } })).toEqual({
      pg: { a: mark('1'), b: mark('9') },
      my: { c: mark('3') },
    });
  });
});

describe('mark values of each kind', () => {
  it('accepts each kind’s form and refuses others', () => {
    const problem = (type: string, value: string) => markProblems({ pg: { t: { column: 'c', type, value } } }, 'm')['m.pg.t'];
    const accepted: [string, string][] = [
      ['integer', '-9223372036854775808'],
      ['decimal', '99999999999999999999999999.9999999999'],
      ['date', '2024-02-29'],
      ['timestamp', '2024-01-15T10:20:30.1234567'],
      ['timestamptz', '2024-01-15T10:20:30.123456Z'],
      ['timestamptz', '2024-01-15 10:20:30+05:30'],
      ['objectid', '65a1f0c2e4b0a1b2c3d4e5f6'],
    ];
    for (const [type, value] of accepted) expect(problem(type, value), `${type} ${value}`).toBeUndefined();
    const refused: [string, string][] = [
      ['integer', '1.5'],
      ['decimal', '1e5'],
      ['date', '2024-02-29T00:00:00'],
      ['timestamp', '2024-01-15T10:20:30Z'],
      ['timestamptz', '2024-01-15T10:20:30'],
      ['objectid', 'zz'],
    ];
    for (const [type, value] of refused) expect(problem(type, value), `${type} ${value}`).toMatch(/is not/);
  });
});
