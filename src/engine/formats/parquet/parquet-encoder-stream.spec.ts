import { describe, expect, it } from 'vitest';
import { PgOid } from '../../connectors/postgres/postgres-types.js';
import type { ByteOutput } from '../table-encoder.js';
import { createParquetEncoder, type ParquetTableEncoder } from './parquet-encoder.js';
import { CollectingOutput, withParquetFile } from './testing/duckdb-parquet.js';
import { encodeRows } from './testing/encode-rows.js';
import { pgColumn } from './testing/engine-columns.js';

const columns = [
  pgColumn('id', 'bigint', PgOid.int8),
  pgColumn('name', 'text', PgOid.text),
  pgColumn('amount', 'numeric(12,2)', PgOid.numeric),
  pgColumn('at', 'timestamp with time zone', PgOid.timestamptz),
];
const row = (i: number): string =>
  `{"id":${i},"name":"customer ${i} ${'x'.repeat(i % 50)}","amount":"${((i % 100_000) / 100).toFixed(2)}","at":"2024-01-15T08:20:30.${String(i % 1_000_000).padStart(6, '0')}Z"}`;
const batchOf = (from: number, count: number): Buffer => Buffer.from(Array.from({ length: count }, (_, k) => row(from + k)).join(','));
const encoderFor = (output: ByteOutput, options = {}): ParquetTableEncoder =>
  createParquetEncoder(options)({ datasource: 'pg', table: 'orders', engine: 'POSTGRESQL', columns }, output) as ParquetTableEncoder;

describe('Parquet encoder, streaming', () => {
  it('writes 300,000 rows with its held rows bounded by bytes, row group after row group as they fill', async () => {
    const output = new CollectingOutput();
    const bound = 1024 * 1024;
    const encoder = encoderFor(output, { rowGroupBytes: bound });
    const rows = 300_000;
    const perBatch = 1_000;
    let largestBatch = 0;
    let writtenBeforeFinish = 0;
    for (let from = 0; from < rows; from += perBatch) {
      const batch = batchOf(from, perBatch);
      largestBatch = Math.max(largestBatch, batch.length);
      await encoder.writeRows(batch, perBatch);
      // Between batches only the rows of the row group being gathered are held, never more than the bound.
      expect(encoder.pendingBytes).toBeLessThan(bound);
      expect(encoder.pendingRows).toBeLessThan(20_000);
    }
    writtenBeforeFinish = output.size;
    const groupsBeforeFinish = encoder.rowGroupsWritten;
    await encoder.finish();
    expect(encoder.peakHeldBytes).toBeLessThanOrEqual(bound + largestBatch);
    // The rows went out as they came: all but the last row group before finish().
    expect(groupsBeforeFinish).toBeGreaterThanOrEqual(20);
    expect(writtenBeforeFinish).toBeGreaterThan(output.size * 0.8);
    await withParquetFile(output.bytes, async (file) => {
      const [meta] = await file.query(`SELECT num_rows, num_row_groups FROM parquet_file_metadata('${file.path}')`);
      expect(meta).toEqual([String(rows), String(groupsBeforeFinish + 1)]);
      const [sums] = await file.query(
        `SELECT count(*), sum(id), count(DISTINCT id), max(length(name)), sum(amount), min("at"), max("at") FROM '${file.path}'`,
      );
      let amount = 0n;
      for (let i = 0; i < rows; i++) amount += BigInt(i % 100_000);
      expect(sums).toEqual([
        String(rows),
        String((rows * (rows - 1)) / 2),
        String(rows),
        String('customer 299999 '.length + 49),
        (Number(amount) / 100).toFixed(2),
        '2024-01-15 08:20:30+00',
        '2024-01-15 08:20:30.299999+00',
      ]);
      const [one] = await file.query(`SELECT name, amount::VARCHAR, "at"::VARCHAR FROM '${file.path}' WHERE id = 123457`);
      expect(one).toEqual([`customer 123457 ${'x'.repeat(7)}`, '234.57', '2024-01-15 08:20:30.123457+00']);
    });
  });

  it('caps a row group by rows too', async () => {
    const rows = Array.from({ length: 95 }, (_, i) => row(i));
    const { encoder, bytes } = await encodeRows('POSTGRESQL', columns, rows, { rowGroupRows: 10, rowsPerBatch: 7 });
    expect(encoder.rowGroupsWritten).toBe(10);
    await withParquetFile(bytes, async (file) => {
      const groups = await file.query(`SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata('${file.path}') ORDER BY 1`);
      expect(groups.map(([, count]) => count)).toEqual([...Array.from({ length: 9 }, () => '10'), '5']);
    });
  });

  it('keeps each row group’s statistics its own, though strings are handed to the writer as views of the group’s bytes', async () => {
    const codes = [pgColumn('id', 'bigint', PgOid.int8), pgColumn('code', 'text', PgOid.text)];
    // Short codes (statistics keep them whole), shuffled so each group has its own min and max.
    const rows = Array.from({ length: 400 }, (_, i) => `{"id":${i},"code":"c${String((i * 7919) % 1000).padStart(3, '0')}"}`);
    const { bytes, encoder } = await encodeRows('POSTGRESQL', codes, rows, { rowGroupBytes: 600, rowsPerBatch: 9 });
    expect(encoder.rowGroupsWritten).toBeGreaterThan(10);
    await withParquetFile(bytes, async (file) => {
      const stats = await file.query(
        `SELECT stats_min_value, stats_max_value FROM parquet_metadata('${file.path}') WHERE path_in_schema = 'code' ORDER BY row_group_id`,
      );
      const sizes = await file.query(`SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata('${file.path}') ORDER BY 1`);
      let first = 0;
      const expected = sizes.map(([, count]) => {
        const group = rows.slice(first, first + Number(count)).map((row) => (JSON.parse(row) as { code: string }).code);
        first += Number(count);
        return [group.reduce((a, b) => (a < b ? a : b)), group.reduce((a, b) => (a > b ? a : b))];
      });
      expect(stats).toEqual(expected);
    });
  });

  it('awaits each write of the output before the next, and writeRows before it returns', async () => {
    const releases: (() => void)[] = [];
    let writing = false;
    let overlapped = false;
    const chunks: Buffer[] = [];
    const gated: ByteOutput = {
      write: async (chunk) => {
        overlapped ||= writing;
        writing = true;
        await new Promise<void>((resolve) => releases.push(resolve));
        chunks.push(chunk);
        writing = false;
      },
    };
    // Every row fills a row group: five groups, five writes.
    const encoder = encoderFor(gated, { rowGroupBytes: 1 });
    let resolved = false;
    const done = encoder.writeRows(batchOf(0, 5), 5).then(() => {
      resolved = true;
    });
    for (let released = 0; released < 5; released++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      // A row group is waiting on its write: writeRows has not returned.
      expect(resolved).toBe(false);
      expect(releases.length).toBe(1);
      releases.shift()?.();
    }
    await done;
    expect(overlapped).toBe(false);
    expect(chunks.length).toBe(5);
  });

  it('writes a table without rows as a file with its schema', async () => {
    const { bytes } = await encodeRows('POSTGRESQL', columns, []);
    await withParquetFile(bytes, async (file) => {
      expect(await file.types()).toEqual({ id: 'BIGINT', name: 'VARCHAR', amount: 'DECIMAL(12,2)', at: 'TIMESTAMP WITH TIME ZONE' });
      expect(await file.query(`SELECT count(*) FROM '${file.path}'`)).toEqual([['0']]);
    });
  });

  it('refuses a batch that is not what its row count or the columns say, and stays failed', async () => {
    const encoder = encoderFor(new CollectingOutput());
    await expect(encoder.writeRows(batchOf(0, 3), 2)).rejects.toThrow('Parquet: table "orders" of "pg": a batch said 2 rows and held 3');
    await expect(encoder.finish()).rejects.toThrow('a batch said 2 rows and held 3');
    const short = encoderFor(new CollectingOutput());
    await expect(short.writeRows(Buffer.from('{"id":1,"name":"a"}'), 1)).rejects.toThrow('a row has 2 values for 4 columns');
    expect(() =>
      createParquetEncoder()({ datasource: 'pg', table: 't', engine: 'POSTGRESQL', columns: [] }, new CollectingOutput()),
    ).toThrow('has no columns to write');
  });
});
