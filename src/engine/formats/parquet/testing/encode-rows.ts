import type { ColumnInfo } from '../../../connectors/shared/engine-connector.js';
import type { EngineType } from '../../../connectors/shared/engine-facts.js';
import { createParquetEncoder, type ParquetEncoderOptions, type ParquetTableEncoder } from '../parquet-encoder.js';
import { CollectingOutput } from './duckdb-parquet.js';

export interface Encoded {
  readonly bytes: Buffer;
  readonly encoder: ParquetTableEncoder;
  readonly output: CollectingOutput;
}

/**
 * Encodes rows (each the JSON object text a connector renders) through a Parquet encoder, in
 * batches of `rowsPerBatch` joined with commas as RowBatch.json is. Every batch is written into
 * the same buffer, which is overwritten as soon as writeRows resolves, as a connector reuses its
 * memory: an encoder that kept a view of it would write garbage, and the readers would see it.
 */
export async function encodeRows(
  engine: EngineType,
  columns: readonly ColumnInfo[],
  rows: readonly string[],
  options: ParquetEncoderOptions & { readonly rowsPerBatch?: number; readonly table?: string } = {},
): Promise<Encoded> {
  const output = new CollectingOutput();
  const encoder = createParquetEncoder(options)(
    { datasource: 'src', table: options.table ?? 'things', engine, columns },
    output,
  ) as ParquetTableEncoder;
  const perBatch = options.rowsPerBatch ?? 2;
  const shared = Buffer.alloc(rows.reduce((size, row) => size + Buffer.byteLength(row) + 1, 0));
  for (let start = 0; start < rows.length; start += perBatch) {
    const batch = rows.slice(start, start + perBatch);
    const length = shared.write(batch.join(','), 0, 'utf8');
    await encoder.writeRows(shared.subarray(0, length), batch.length);
    shared.fill('#');
  }
  await encoder.finish();
  return { bytes: output.bytes, encoder, output };
}
