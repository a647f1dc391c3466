import { JSON_ROW_FRAME, type RowBatch, type RowFrame } from './engine-connector.js';

/**
 * Characters per rendered chunk. Small enough that each chunk, once flattened for encoding, is an
 * ordinary young-generation string rather than a large-object allocation that only a full GC
 * frees; and chunks leave the connector as Buffers, not as ropes of small strings the GC must
 * trace while they wait. This is what keeps a worker's memory flat on big tables.
 */
export const RENDER_CHUNK_CHARS = 48 * 1024;

/** Characters JSON cannot carry inside a string as they are. */
export const NEEDS_JSON_ESCAPE = /["\\\u0000-\u001f]/;

const PLAIN_TEXT = Symbol('renders text needing no escape as "text"');

/**
 * Marks an encoder that renders a string needing no escape (NEEDS_JSON_ESCAPE) as `"` + it + `"`.
 * The renderer then writes a large such value straight from the driver's string into the chunk's
 * bytes: no JSON copy and no flattened rope of it on the heap, where megabyte strings would wait
 * for a full GC.
 */
export function plainTextEncoder<E extends (value: never) => string>(encoder: E): E {
  return Object.assign(encoder, { [PLAIN_TEXT]: true });
}

/**
 * Builds the renderer every SQL connector uses: rows (values in projection order) → JSON objects
 * framed by `frame` (by default: joined with commas), cut into ~RENDER_CHUNK_CHARS chunks. Keys,
 * per-column encoders and the frame's strings are fixed up front, so the per-row work is
 * concatenation, and as much of it for any frame as for the default; NULL (and undefined) render
 * as `null`.
 */
export function createRowBatchRenderer<V>(
  names: readonly string[],
  encoders: readonly ((value: V) => string)[],
  frame: RowFrame = JSON_ROW_FRAME,
): (rows: readonly (readonly (V | null | undefined)[])[]) => RowBatch[] {
  const n = names.length;
  const prefixes = names.map((name, i) => (i === 0 ? '{' : ',') + JSON.stringify(name) + ':');
  // What comes before a chunk's first row, before every later one, and after each.
  const first = frame.open;
  const later = frame.separator + frame.open;
  const after = '}' + frame.close;
  const plain = encoders.map((encoder) => (encoder as { [PLAIN_TEXT]?: boolean })[PLAIN_TEXT] === true);
  return (rows) => {
    const chunks: RowBatch[] = [];
    let json = '';
    /** Bytes of the chunk so far when it holds a large value: the text before `json`. */
    let parts: Buffer[] | undefined;
    let partChars = 0;
    let count = 0;
    const flush = () => {
      const tail = Buffer.from(json, 'utf8');
      chunks.push({ json: parts === undefined ? tail : Buffer.concat([...parts, tail]), rowCount: count });
      json = '';
      parts = undefined;
      partChars = 0;
      count = 0;
    };
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      let s = count === 0 ? first : later;
      if (n === 0) s += '{';
      for (let i = 0; i < n; i++) {
        const v = row[i];
        if (v === null || v === undefined) {
          s += prefixes[i] + 'null';
        } else if (plain[i] && typeof v === 'string' && v.length >= RENDER_CHUNK_CHARS && !NEEDS_JSON_ESCAPE.test(v)) {
          parts ??= [];
          parts.push(Buffer.from(json + s + prefixes[i] + '"', 'utf8'), Buffer.from(v, 'utf8'));
          partChars += json.length + s.length + v.length;
          json = '';
          s = '"';
        } else {
          s += prefixes[i] + encoders[i](v);
        }
      }
      json += s + after;
      count++;
      if (json.length + partChars >= RENDER_CHUNK_CHARS) flush();
    }
    if (count > 0) flush();
    return chunks;
  };
}
