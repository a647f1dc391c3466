import type { SchemaElement } from 'hyparquet-writer';
import type { ParquetColumnType, ParquetLeaf } from './parquet-leaf.js';

const OPTIONAL = 'OPTIONAL';

/** Bytes of a FIXED_LEN_BYTE_ARRAY that holds every DECIMAL of `precision` digits, two's complement. */
export function decimalBytes(precision: number): number {
  const largest = 10n ** BigInt(precision) - 1n;
  let bytes = 1;
  while (largest >= 1n << BigInt(bytes * 8 - 1)) bytes++;
  return bytes;
}

/**
 * The schema element of one leaf, with both annotations where Parquet has both (the converted
 * type older readers know, the logical type newer ones prefer). Deliberately absent:
 * - INTEGER logical types on INT32/INT64: plain signed integers read everywhere, and DuckDB refuses
 *   a footer with INTEGER(64).
 * - a converted type on zone-less timestamps: TIMESTAMP_MICROS/MILLIS mean UTC-adjusted, so only
 *   the logical type (isAdjustedToUTC false) says what they are.
 * JSON is written as UTF8 here, so hyparquet-writer stores the text as given (its JSON converted type
 * would JSON.stringify the string again); the footer says JSON (footerSchema).
 */
export function leafElement(name: string, leaf: ParquetLeaf, repetition: 'OPTIONAL' | 'REQUIRED' = OPTIONAL): SchemaElement {
  const base = { name, repetition_type: repetition } as const;
  switch (leaf.type) {
    case 'boolean':
      return { ...base, type: 'BOOLEAN' };
    case 'int32':
      return { ...base, type: 'INT32' };
    case 'int64':
      return { ...base, type: 'INT64' };
    case 'float':
      return { ...base, type: 'FLOAT' };
    case 'double':
      return { ...base, type: 'DOUBLE' };
    case 'decimal': {
      const { precision, scale } = leaf;
      const annotation = { converted_type: 'DECIMAL', precision, scale, logical_type: { type: 'DECIMAL', precision, scale } } as const;
      // The physical types Parquet recommends by precision: 4 or 8 bytes while they hold it.
      if (precision <= 9) return { ...base, type: 'INT32', ...annotation };
      if (precision <= 18) return { ...base, type: 'INT64', ...annotation };
      return { ...base, type: 'FIXED_LEN_BYTE_ARRAY', type_length: decimalBytes(precision), ...annotation };
    }
    case 'date':
      return { ...base, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } };
    case 'timestamp': {
      const logical = { type: 'TIMESTAMP', isAdjustedToUTC: leaf.utc, unit: leaf.unit } as const;
      if (!leaf.utc) return { ...base, type: 'INT64', logical_type: logical };
      return {
        ...base,
        type: 'INT64',
        converted_type: leaf.unit === 'MICROS' ? 'TIMESTAMP_MICROS' : 'TIMESTAMP_MILLIS',
        logical_type: logical,
      };
    }
    case 'uuid':
      return { ...base, type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, logical_type: { type: 'UUID' } };
    case 'binary':
      return { ...base, type: 'BYTE_ARRAY' };
    case 'string':
    case 'text':
      return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
    case 'json':
      return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'JSON' } };
  }
}

/** A column's elements: its leaf, or the standard three-level LIST around it (nullable list, nullable elements). */
export function columnElements(name: string, type: ParquetColumnType): SchemaElement[] {
  if (!type.list) return [leafElement(name, type.leaf)];
  return [
    { name, repetition_type: OPTIONAL, converted_type: 'LIST', logical_type: { type: 'LIST' }, num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    leafElement('element', type.leaf),
  ];
}

/** The file's schema: a root, then each column's elements in output order. */
export function parquetSchema(columns: readonly { readonly name: string; readonly type: ParquetColumnType }[]): SchemaElement[] {
  return [{ name: 'schema', num_children: columns.length }, ...columns.flatMap((column) => columnElements(column.name, column.type))];
}

/** The schema as the footer states it: JSON leaves with the JSON converted type that matches their logical type. */
export function footerSchema(schema: readonly SchemaElement[]): SchemaElement[] {
  return schema.map((element) => (element.logical_type?.type === 'JSON' ? { ...element, converted_type: 'JSON' } : element));
}
