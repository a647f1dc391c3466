import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { TableDescription } from '../table-encoder.js';
import { CsvEncoder } from './csv-encoder.js';

const table = (...names: string[]): TableDescription => ({
  datasource: 'src',
  table: 'public.t',
  engine: 'POSTGRESQL',
  columns: names.map((name) => ({ name, dataType: 'text' })),
});

/** Rows as the connectors render them: JSON objects joined with commas; `raw` members are spliced in as written. */
const batch = (rows: readonly string[]) => Buffer.from(rows.join(','), 'utf8');

async function encode(description: TableDescription, batches: readonly Buffer[]): Promise<string> {
  const chunks: Buffer[] = [];
  const encoder = new CsvEncoder(description, { write: async (chunk) => void chunks.push(Buffer.from(chunk)) });
  for (const json of batches) await encoder.writeRows(json);
  await encoder.finish();
  return Buffer.concat(chunks).toString('utf8');
}

describe('CsvEncoder', () => {
  it('writes a header and one line per row, each value as its JSON text, quoting only when RFC 4180 needs it', async () => {
    const csv = await encode(table('id', 'name', 'note', 'doc', 'flag', 'amount'), [
      batch([
        '{"id":9007199254740993,"name":"plain","note":"a,b","doc":{"big":12345678901234567890,"s":"x"},"flag":true,"amount":"12.50"}',
        '{"id":-1.5e+300,"name":"He said \\"hi\\"","note":"two\\nlines\\r","doc":[1,null,"a,b"],"flag":false,"amount":null}',
        '{"id":0,"name":"","note":"tab\\there \\u0001 😀 ção","doc":[],"flag":null,"amount":"NaN"}',
      ]),
    ]);
    expect(csv).toBe(
      'id,name,note,doc,flag,amount\n' +
        '9007199254740993,plain,"a,b","{""big"":12345678901234567890,""s"":""x""}",true,12.50\n' +
        '-1.5e+300,"He said ""hi""","two\nlines\r","[1,null,""a,b""]",false,\n' +
        '0,"",tab\there \u0001 😀 ção,[],,NaN\n',
    );
  });

  it('reads back through a standard parser with NULL and the empty string apart', async () => {
    const csv = await encode(table('a', 'b'), [batch(['{"a":null,"b":""}', '{"a":"x\\"y","b":"line\\nbreak"}'])]);
    const records = parse(csv, { cast: (value, context) => (context.quoting || value !== '' ? value : null) }) as unknown[][];
    expect(records).toEqual([
      ['a', 'b'],
      [null, ''],
      ['x"y', 'line\nbreak'],
    ]);
  });

  it('quotes header names that need it, and writes only the header for a table without rows', async () => {
    expect(await encode(table('plain', 'with,comma', 'say "x"'), [])).toBe('plain,"with,comma","say ""x"""\n');
  });

  it('keeps long values whole and output flowing across many batches', async () => {
    const long = 'x'.repeat(100_000);
    const batches = Array.from({ length: 30 }, (_, i) => batch([`{"id":${i},"v":"${long}"}`]));
    const csv = await encode(table('id', 'v'), batches);
    const lines = csv.split('\n');
    expect(lines).toHaveLength(32);
    expect(lines[30]).toBe(`29,${long}`);
  });

  it('refuses a row whose value count is not the column count', async () => {
    await expect(encode(table('a', 'b'), [batch(['{"a":1}'])])).rejects.toThrow("table 'public.t': a row has 1 values for 2 columns");
  });
});
