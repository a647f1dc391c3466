import { csvEncoder } from './csv/csv-encoder.js';
import type { OutputFormat } from './output-format.js';
import { parquetEncoder } from './parquet/parquet-encoder.js';
import type { TableEncoderFactory } from './table-encoder.js';

/** The encoder of each per-table format. */
export const TABLE_ENCODERS: Partial<Record<OutputFormat, TableEncoderFactory>> = {
  csv: csvEncoder,
  parquet: parquetEncoder,
};
