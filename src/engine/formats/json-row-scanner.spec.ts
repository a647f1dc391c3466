import { describe, expect, it } from 'vitest';
import { JsonKind, JsonRow, MalformedRowsError, scanArrayElements, scanRows } from './json-row-scanner.js';

const batch = (rows: readonly object[]) => Buffer.from(rows.map((row) => JSON.stringify(row)).join(','), 'utf8');

function scanned(json: Buffer): [JsonKind, string][][] {
  const rows: [JsonKind, string][][] = [];
  scanRows(json, (row) => {
    const values: [JsonKind, string][] = [];
    for (let i = 0; i < row.count; i++) values.push([row.kind(i), row.text(i)]);
    rows.push(values);
  });
  return rows;
}

describe('scanRows', () => {
  it('hands each row its values by position, strings decoded and everything else as its JSON text', () => {
    const rows = [
      { a: 1, b: 'x,"y', c: null, d: { e: [1, ']}'] }, f: true, g: -1.5e3, h: '' },
      { a: 1234567890, b: 'ü€😀', c: [], d: {}, f: false, g: 0, h: '\\\n' },
    ];
    const json = Buffer.from(JSON.stringify(rows).slice(1, -1).replace('1234567890', '12345678901234567890'));
    expect(scanned(json)).toEqual([
      [
        [JsonKind.Number, '1'],
        [JsonKind.String, 'x,"y'],
        [JsonKind.Null, 'null'],
        [JsonKind.Object, '{"e":[1,"]}"]}'],
        [JsonKind.True, 'true'],
        [JsonKind.Number, '-1500'],
        [JsonKind.String, ''],
      ],
      [
        [JsonKind.Number, '12345678901234567890'],
        [JsonKind.String, 'ü€😀'],
        [JsonKind.Array, '[]'],
        [JsonKind.Object, '{}'],
        [JsonKind.False, 'false'],
        [JsonKind.Number, '0'],
        [JsonKind.String, '\\\n'],
      ],
    ]);
  });

  it('marks the strings whose bytes are not their text, and gives their exact byte ranges', () => {
    const json = batch([{ plain: 'a,b', escaped: 'a"b' }]);
    scanRows(json, (row) => {
      expect([row.escaped(0), row.escaped(1)]).toEqual([false, true]);
      expect(json.toString('utf8', row.start(0), row.end(0))).toBe('"a,b"');
      expect(row.raw(1)).toBe('"a\\"b"');
    });
  });

  it('counts rows, an empty object and an empty batch included', () => {
    expect(scanRows(batch([{}, { a: 1 }, {}]), () => undefined)).toBe(3);
    expect(scanRows(Buffer.alloc(0), () => undefined)).toBe(0);
  });

  it('grows past sixteen columns', () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`c${i}`, i]));
    const [row] = scanned(batch([wide]));
    expect(row).toHaveLength(40);
    expect(row[39]).toEqual([JsonKind.Number, '39']);
  });

  it.each(['{"a":1', '{"a":1}{"b":2}', '[1]', '{"a":"open}', '{"a":}', '{a:1}'])('refuses %s as malformed', (text) => {
    expect(() => scanRows(Buffer.from(text), () => undefined)).toThrow(MalformedRowsError);
  });
});

describe('scanArrayElements', () => {
  it("splits one array's top level into values by position, keeping nested values and big integers whole", () => {
    const json = Buffer.from('{"a":[12345678901234567890,"x,]",null,[1,[2]],{"k":"}"},true,-0.5],"b":[]}');
    scanRows(json, (row) => {
      const elements = new JsonRow();
      scanArrayElements(row, 0, elements);
      const values = Array.from({ length: elements.count }, (_, i) => [elements.kind(i), elements.text(i)]);
      expect(values).toEqual([
        [JsonKind.Number, '12345678901234567890'],
        [JsonKind.String, 'x,]'],
        [JsonKind.Null, 'null'],
        [JsonKind.Array, '[1,[2]]'],
        [JsonKind.Object, '{"k":"}"}'],
        [JsonKind.True, 'true'],
        [JsonKind.Number, '-0.5'],
      ]);
      scanArrayElements(row, 1, elements);
      expect(elements.count).toBe(0);
    });
  });

  it.each(['{"a":[1,]}', '{"a":[1,,2]}'])('refuses %s as malformed', (text) => {
    const row = new JsonRow();
    expect(() => scanRows(Buffer.from(text), (scanned) => scanArrayElements(scanned, 0, row))).toThrow(MalformedRowsError);
  });
});
