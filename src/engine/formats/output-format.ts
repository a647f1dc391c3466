/** What a result is written as (docs/value-mapping.md, "Formats"). */
export const OUTPUT_FORMATS = ['json', 'ndjson', 'csv', 'parquet'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const OUTPUT_COMPRESSIONS = ['none', 'gzip', 'zstd'] as const;
export type OutputCompression = (typeof OUTPUT_COMPRESSIONS)[number];

/** A job's `output`, every member given. */
export interface ResultOutput {
  readonly format: OutputFormat;
  readonly compression: OutputCompression;
}

/** Today's result: one compact JSON document, uncompressed. */
export const DEFAULT_OUTPUT: ResultOutput = { format: 'json', compression: 'none' };

/** Formats written as one part per table, listed by a manifest; the others are one object. */
export const PER_TABLE_FORMATS: ReadonlySet<OutputFormat> = new Set(['csv', 'parquet']);

export const isPerTable = (output: ResultOutput): boolean => PER_TABLE_FORMATS.has(output.format);

/** gzip level: zlib's default (6), the usual balance of speed and size. */
export const GZIP_LEVEL = 6;
/** zstd level: the library's default (3). */
export const ZSTD_LEVEL = 3;

const EXTENSIONS: Record<OutputFormat, string> = { json: 'json', ndjson: 'ndjson', csv: 'csv', parquet: 'parquet' };
const COMPRESSION_EXTENSIONS: Record<OutputCompression, string> = { none: '', gzip: '.gz', zstd: '.zst' };

/** A file name's extension for this output: `csv.gz`, `parquet`, `ndjson.zst`. */
export function fileExtension(output: ResultOutput): string {
  return EXTENSIONS[output.format] + COMPRESSION_EXTENSIONS[output.compression];
}

const CONTENT_TYPES: Record<OutputFormat, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8; header=present',
  parquet: 'application/vnd.apache.parquet',
};

/** The HTTP `Content-Type` of an object of this format, and its `Content-Encoding` when compressed. */
export function httpTypeOf(output: ResultOutput): { readonly contentType: string; readonly contentEncoding?: string } {
  const contentType = CONTENT_TYPES[output.format];
  return output.compression === 'none' ? { contentType } : { contentType, contentEncoding: output.compression };
}

/**
 * What is wrong with an `output` value, per field (`output.format`, `output.compression`), or
 * null when it is valid. Absent members take their defaults; unknown members are refused.
 */
export function outputProblems(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return { output: 'must be an object with "format" and "compression"' };
  const problems: Record<string, string> = {};
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key !== 'format' && key !== 'compression') problems[`output.${key}`] = 'is not a member of output (format, compression)';
  }
  const { format, compression } = record;
  if (format !== undefined && !(OUTPUT_FORMATS as readonly unknown[]).includes(format)) {
    problems['output.format'] = `must be one of ${OUTPUT_FORMATS.join(', ')}`;
  }
  if (compression !== undefined && !(OUTPUT_COMPRESSIONS as readonly unknown[]).includes(compression)) {
    problems['output.compression'] = `must be one of ${OUTPUT_COMPRESSIONS.join(', ')}`;
  }
  return Object.keys(problems).length > 0 ? problems : null;
}

/** The output with its defaults filled in; call outputProblems first. */
export function resolveOutput(value: Partial<ResultOutput> | null | undefined): ResultOutput {
  return { format: value?.format ?? DEFAULT_OUTPUT.format, compression: value?.compression ?? DEFAULT_OUTPUT.compression };
}
