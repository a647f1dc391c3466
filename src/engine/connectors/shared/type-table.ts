import type { ColumnInfo, RowBatch, RowFrame } from './engine-connector.js';
import { createRowBatchRenderer } from './row-batch-renderer.js';

/*
 * How connectors go from a column's engine type to its values' JSON: the engine type is read back
 * from the schema snapshot, gives the column a kind, and the kind picks the encoder in a table.
 */

/** How a field of an engine type is checked: its `typeof`, or an array. */
type FieldShape = 'string' | 'number' | 'array';

/**
 * The reader of one engine's `ColumnInfo.engineType`: the type when it has the fields the
 * connector relies on, null otherwise. A schema snapshot may come from a cache outside the process
 * (Redis) or an older release, so its engine types are checked rather than trusted.
 */
export function engineTypeReader<T extends object>(
  required: Readonly<Partial<Record<keyof T, FieldShape>>>,
): (column: ColumnInfo) => T | null {
  const checks = Object.entries(required) as [string, FieldShape][];
  return (column) => {
    const type = column.engineType;
    if (type === null || typeof type !== 'object') return null;
    for (const [name, shape] of checks) {
      const value = (type as Record<string, unknown>)[name];
      if (shape === 'array' ? !Array.isArray(value) : typeof value !== shape) return null;
    }
    return type as T;
  };
}

/** A kind's entry in a per-kind table; a kind the table lacks (a snapshot from another release) gets `fallback`. */
export function kindLookup<K extends string, E>(table: Readonly<Record<K, E>>, fallback: E): (kind: K) => E {
  return (kind) => table[kind] ?? fallback;
}

/**
 * `createBatchRenderer` of an engine whose encoders are chosen by kind alone: rows as JSON objects
 * framed by `frame` (absent: joined with commas), in ~48 KiB chunks (see row-batch-renderer).
 * `kinds` default to the columns' own.
 */
export function kindBatchRenderer<K extends string, V>(
  kindOfColumn: (column: ColumnInfo) => K,
  encoderFor: (kind: K) => (value: V) => string,
): (
  columns: readonly ColumnInfo[],
  kinds?: readonly K[],
  frame?: RowFrame,
) => (rows: readonly (readonly (V | null | undefined)[])[]) => RowBatch[] {
  return (columns, kinds = columns.map(kindOfColumn), frame) =>
    createRowBatchRenderer(
      columns.map((c) => c.name),
      kinds.map(encoderFor),
      frame,
    );
}
