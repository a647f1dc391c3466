import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { ByteOutput } from '../../table-encoder.js';

/** A ByteOutput that keeps every chunk, and how many writes it took. */
export class CollectingOutput implements ByteOutput {
  readonly chunks: Buffer[] = [];

  async write(chunk: Buffer): Promise<void> {
    // A tick per write, as a real sink takes: an encoder that did not await would interleave.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.chunks.push(chunk);
  }

  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  get size(): number {
    return this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  }
}

/** A Parquet file as DuckDB, an independent reader, sees it. */
export interface ParquetFile {
  /** The path to use in SQL (`FROM '${path}'`). */
  readonly path: string;
  /** Column name → DuckDB type (`DECIMAL(38,10)`, `TIMESTAMP WITH TIME ZONE`, `BIGINT[]`). */
  types(): Promise<Record<string, string>>;
  /** Rows of a query, every value as DuckDB's text of it (null for NULL). */
  query(sql: string): Promise<(string | null)[][]>;
}

/**
 * Writes `bytes` to a file of its own under the temp directory, opens it in an in-memory DuckDB
 * (session time zone UTC, so TIMESTAMP WITH TIME ZONE prints as `…+00`), runs `use`, then removes it.
 */
export async function withParquetFile<T>(bytes: Buffer, use: (file: ParquetFile) => Promise<T>): Promise<T> {
  const path = join(tmpdir(), `fetcher-parquet-${process.pid}-${randomUUID()}.parquet`);
  await writeFile(path, bytes);
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    await connection.run("SET TimeZone = 'UTC'");
    const query = async (sql: string): Promise<(string | null)[][]> => {
      const reader = await connection.runAndReadAll(sql);
      return reader.getRows().map((row) => row.map((value) => (value === null ? null : String(value))));
    };
    const file: ParquetFile = {
      path,
      query,
      types: async () => {
        const rows = await query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${path}')`);
        return Object.fromEntries(rows.map(([name, type]) => [name, type]));
      },
    };
    const result = await use(file);
    connection.closeSync();
    return result;
  } finally {
    instance.closeSync();
    await rm(path, { force: true });
  }
}

/** Each column as DuckDB's VARCHAR text: exact for DECIMAL, shortest round-trip for floats; BLOBs as base64. */
export function textOfEveryColumn(types: Record<string, string>): string {
  return Object.entries(types)
    .map(([name, type]) => {
      const quoted = `"${name.replace(/"/g, '""')}"`;
      return type === 'BLOB'
        ? `base64(${quoted})`
        : type === 'BLOB[]'
          ? `list_transform(${quoted}, b -> base64(b))::VARCHAR`
          : `${quoted}::VARCHAR`;
    })
    .join(', ');
}
