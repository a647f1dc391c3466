import { describe, expect, it } from 'vitest';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { RENDER_CHUNK_CHARS } from '../shared/row-batch-renderer.js';
import { expectRendererFrames } from '../testing/row-frames.js';
import { createBatchRenderer, encodeAny, encoderFor, type RawValue } from './sqlserver-value-encoders.js';
import type { SqlServerValueKind } from './sqlserver-types.js';
import { column } from './testing/fake-datasource.js';

/**
 * docs/value-mapping.md, "SQL Server": the value tedious hands over for each type (after the
 * SELECT's own conversions, see sqlserver-sql.spec.ts) and the JSON it becomes.
 */
const MAPPING: readonly [type: string, kind: SqlServerValueKind, driver: RawValue, json: string][] = [
  ['bit', 'boolean', true, 'true'],
  ['bit', 'boolean', false, 'false'],
  ['tinyint', 'integer', 255, '255'],
  ['smallint', 'integer', -32768, '-32768'],
  ['int', 'integer', -2147483648, '-2147483648'],
  ['bigint', 'bigint', '9223372036854775807', '9223372036854775807'],
  ['bigint', 'bigint', '-9223372036854775808', '-9223372036854775808'],
  ['decimal(38,10)', 'decimal', '1234567890123456789012345678.0123456789', '"1234567890123456789012345678.0123456789"'],
  ['numeric(12,2)', 'decimal', '-0.05', '"-0.05"'],
  ['money', 'money', '922337203685477.5807', '"922337203685477.5807"'],
  ['smallmoney', 'money', '100.5000', '"100.5000"'],
  ['float', 'float', 0.1, '0.1'],
  ['float', 'float', 1e300, '1e+300'],
  ['float', 'float', -2.5e-7, '-2.5e-7'],
  ['real', 'real', Math.fround(0.1), '0.1'],
  ['real', 'real', Math.fround(3.40282e38), '3.40282e+38'],
  ['date', 'date', '2024-02-29', '"2024-02-29"'],
  ['date', 'date', '0001-01-01', '"0001-01-01"'],
  ['datetime2(7)', 'datetime2', '2024-01-15 10:20:30.1234567', '"2024-01-15T10:20:30.1234567"'],
  ['datetime2(3)', 'datetime2', '2026-05-31 00:00:00.000', '"2026-05-31T00:00:00.000"'],
  ['datetime2(0)', 'datetime2', '2026-05-31 00:00:00', '"2026-05-31T00:00:00"'],
  ['datetime', 'datetime', '2024-01-15 10:20:30.997', '"2024-01-15T10:20:30.997"'],
  ['smalldatetime', 'smalldatetime', '2024-01-15 10:21:00', '"2024-01-15T10:21:00"'],
  ['datetimeoffset(7)', 'datetimeoffset', '2024-01-15 10:20:30.1234567 +05:30', '"2024-01-15T10:20:30.1234567+05:30"'],
  ['datetimeoffset(0)', 'datetimeoffset', '2024-01-15 10:20:30 -08:00', '"2024-01-15T10:20:30-08:00"'],
  ['datetimeoffset(3)', 'datetimeoffset', '2024-01-15 10:20:30.000 +00:00', '"2024-01-15T10:20:30.000+00:00"'],
  ['time(7)', 'time', '23:59:59.9999999', '"23:59:59.9999999"'],
  ['time(0)', 'time', '08:00:00', '"08:00:00"'],
  ['uniqueidentifier', 'uuid', '123e4567-e89b-12d3-a456-426655440000', '"123e4567-e89b-12d3-a456-426655440000"'],
  ['varbinary(max)', 'binary', Buffer.from([0x00, 0xff, 0x10]), '"AP8Q"'],
  ['binary(4)', 'binary', Buffer.from([1, 0, 0, 0]), '"AQAAAA=="'],
  ['image', 'binary', Buffer.alloc(0), '""'],
  ['rowversion', 'binary', Buffer.from('00000000000007d1', 'hex'), '"AAAAAAAAB9E="'],
  [
    'nvarchar(max)',
    'text',
    'He said "hi" \\ back\nnew\tline \u0001 😀 ção',
    JSON.stringify('He said "hi" \\ back\nnew\tline \u0001 😀 ção'),
  ],
  ['char(5)', 'text', 'ab   ', '"ab   "'],
  ['ntext', 'long-text', 'long text', '"long text"'],
  ['xml', 'xml', '<a b="1">x</a>', '"<a b=\\"1\\">x</a>"'],
  ['geography', 'clr', 'POINT (1 2)', '"POINT (1 2)"'],
  ['hierarchyid', 'clr', '/1/2/', '"/1/2/"'],
  ['sql_variant', 'variant', '2024-01-15 10:20:30.0000000', '"2024-01-15 10:20:30.0000000"'],
  ['json', 'json', '{ "big": 12345678901234567890, "s": "a b" }', '{"big":12345678901234567890,"s":"a b"}'],
  ['json', 'json', 'not json', '"not json"'],
];

describe('SQL Server value mapping (docs/value-mapping.md)', () => {
  it.each(MAPPING)('%s (%s): %o → %s', (_type, kind, driver, json) => {
    expect(encoderFor(kind)(driver as Exclude<RawValue, null | undefined>)).toBe(json);
  });

  it('renders a value that is not what its column promised by its own shape', () => {
    expect(encoderFor('decimal')(12.5)).toBe('12.5');
    expect(encoderFor('integer')('12x')).toBe('"12x"');
    expect(encoderFor('boolean')(1)).toBe('true');
    expect(encodeAny(new Date('2024-01-15T10:20:30.123Z'))).toBe('"2024-01-15T10:20:30.123Z"');
    expect(encodeAny(Buffer.from('hi'))).toBe('"aGk="');
    expect(encodeAny(Number.NaN)).toBe('"NaN"');
  });
});

describe('SQL Server batch rendering', () => {
  const COLUMNS: ColumnInfo[] = [
    column('id', 'int'),
    column('Note "x"', 'nvarchar(max)'),
    column('amount', 'decimal(12,2)'),
    column('ok', 'bit'),
  ];

  it('renders rows as JSON objects in projection order, NULL as null', () => {
    const [batch] = createBatchRenderer(COLUMNS)([
      [1, 'a', '10.50', true],
      [2, null, null, undefined],
    ]);
    expect(batch.rowCount).toBe(2);
    expect(batch.json.toString('utf8')).toBe(
      '{"id":1,"Note \\"x\\"":"a","amount":"10.50","ok":true},{"id":2,"Note \\"x\\"":null,"amount":null,"ok":null}',
    );
    expect(JSON.parse('[' + batch.json.toString('utf8') + ']')).toEqual([
      { id: 1, 'Note "x"': 'a', amount: '10.50', ok: true },
      { id: 2, 'Note "x"': null, amount: null, ok: null },
    ]);
  });

  it('cuts big batches into chunks of about RENDER_CHUNK_CHARS, each whole rows', () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => [i, 'x'.repeat(100), '1.00', false] as RawValue[]);
    const chunks = createBatchRenderer(COLUMNS)(rows);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.reduce((n, c) => n + c.rowCount, 0)).toBe(3_000);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.json.length).toBeLessThan(RENDER_CHUNK_CHARS + 200);
    const all = JSON.parse('[' + chunks.map((c) => c.json.toString('utf8')).join(',') + ']') as { id: number }[];
    expect(all.map((r) => r.id)).toEqual(rows.map((r) => r[0]));
  });

  it('renders empty objects for an empty projection and nothing for no rows', () => {
    expect(createBatchRenderer([])([[], []])[0].json.toString('utf8')).toBe('{},{}');
    expect(createBatchRenderer(COLUMNS)([])).toEqual([]);
  });

  it('frames rows as NDJSON lines holding each row as the JSON frame renders it, across chunks', () => {
    const rows: RawValue[][] = [
      [1, 'line\none "quoted" \\ \u0001', '10.50', true],
      [2, '', null, undefined],
      ...Array.from({ length: 3_000 }, (_, i) => [i + 3, 'x'.repeat(100) + 'é\n', '1.00', false]),
    ];
    expectRendererFrames((frame, none) => createBatchRenderer(none ? [] : COLUMNS, undefined, frame), rows, [[], []], 3);
  });
});
