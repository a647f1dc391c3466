import type { RowBatch } from './engine-connector.js';

/**
 * Characters per rendered chunk. Small enough that each chunk, once flattened for encoding, is an
 * ordinary young-generation string rather than a large-object allocation that only a full GC
 * frees; and chunks leave the connector as Buffers, not as ropes of small strings the GC must
 * trace while they wait. This is what keeps a worker's memory flat on big tables.
 */
export const RENDER_CHUNK_CHARS = 48 * 1024;

/**
 * Builds the renderer every SQL connector uses: rows (values in projection order) → JSON objects
 * joined with commas, cut into ~RENDER_CHUNK_CHARS chunks. Keys and per-column encoders are fixed
 * up front, so the per-row work is concatenation; NULL (and undefined) render as `null`.
 */
export function createRowBatchRenderer<V>(
  names: readonly string[],
  encoders: readonly ((value: V) => string)[],
): (rows: readonly (readonly (V | null | undefined)[])[]) => RowBatch[] {
  const n = names.length;
  const prefixes = names.map((name, i) => (i === 0 ? '{' : ',') + JSON.stringify(name) + ':');
  return (rows) => {
    const chunks: RowBatch[] = [];
    let json = '';
    let count = 0;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      let s = count === 0 ? '' : ',';
      if (n === 0) s += '{';
      for (let i = 0; i < n; i++) {
        const v = row[i];
        s += prefixes[i] + (v === null || v === undefined ? 'null' : encoders[i](v));
      }
      json += s + '}';
      count++;
      if (json.length >= RENDER_CHUNK_CHARS) {
        chunks.push({ json: Buffer.from(json, 'utf8'), rowCount: count });
        json = '';
        count = 0;
      }
    }
    if (count > 0) chunks.push({ json: Buffer.from(json, 'utf8'), rowCount: count });
    return chunks;
  };
}
