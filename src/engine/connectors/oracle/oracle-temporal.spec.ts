import { describe, expect, it } from 'vitest';
import { isoFormat, parseIsoDateTime, temporalOperand } from './oracle-temporal.js';
import { describeColumnType } from './oracle-types.js';

const type = (dataType: string, scale: number | null = null) => describeColumnType({ dataType, precision: null, scale, charLength: null });

describe('ISO-8601 filter values', () => {
  it.each<[string, ReturnType<typeof parseIsoDateTime>]>([
    ['2026-02-28', { seconds: '2026-02-28 00:00:00', nanos: '000000000', zone: null }],
    ['2026-02-28T10:20', { seconds: '2026-02-28 10:20:00', nanos: '000000000', zone: null }],
    [' 2026-02-28 10:20:30,5 ', { seconds: '2026-02-28 10:20:30', nanos: '500000000', zone: null }],
    ['2026-02-28T10:20:30.123456789z', { seconds: '2026-02-28 10:20:30', nanos: '123456789', zone: '+00:00' }],
    ['2026-02-28T10:20:30-0330', { seconds: '2026-02-28 10:20:30', nanos: '000000000', zone: '-03:30' }],
    ['2026-02-28T10:20:30 +01', { seconds: '2026-02-28 10:20:30', nanos: '000000000', zone: '+01:00' }],
  ])('%s', (text, parsed) => {
    expect(parseIsoDateTime(text)).toEqual(parsed);
  });

  it.each(['28/02/2026', '2026-2-28', '2026-02-28T10', '2026-02-28Z', '2026-02-28T10:20:30.1234567890', 'yesterday', ''])(
    'refuses %j',
    (text) => {
      expect(parseIsoDateTime(text)).toBeNull();
    },
  );

  it('builds the server-side conversion for each date/time kind', () => {
    const sql = (kind: string, text: string) => {
      const operand = temporalOperand(type(kind, 6), text)!;
      return [operand.sql(':1'), operand.value];
    };
    expect(sql('DATE', '2026-02-28')).toEqual(["TO_DATE(:1, 'YYYY-MM-DD HH24:MI:SS')", '2026-02-28 00:00:00']);
    expect(sql('TIMESTAMP(6) WITH TIME ZONE', '2026-02-28T10:00:00+02:00')).toEqual([
      "TO_TIMESTAMP_TZ(:1, 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM')",
      '2026-02-28 10:00:00.000000000 +02:00',
    ]);
    expect(sql('TIMESTAMP(6)', '2026-02-28T10:00:00+02:00')).toEqual([
      "TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF9')",
      '2026-02-28 10:00:00.000000000',
    ]);
    expect(temporalOperand(type('DATE'), 'soon')).toBeNull();
  });

  it('renders ISO formats at the column precision', () => {
    expect(isoFormat(type('DATE'), true)).toBe('SYYYY-MM-DD"T"HH24:MI:SS');
    expect(isoFormat(type('TIMESTAMP(9) WITH TIME ZONE', 9), false)).toBe('YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM');
    expect(isoFormat(type('TIMESTAMP(0) WITH LOCAL TIME ZONE', 0), true)).toBe('SYYYY-MM-DD"T"HH24:MI:SS');
  });
});
