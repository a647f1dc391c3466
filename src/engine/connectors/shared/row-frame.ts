import { JSON_ROW_FRAME, type RowFrame } from './engine-connector.js';

/**
 * A RowFrame as the byte renderers write it, encoded once per read rather than once per row.
 * `isJson` lets them keep their comma-only fast path for the JSON document's frame, so the default
 * costs no more per row than before frames existed.
 */
export interface RowFrameBytes {
  /** Nothing around a row and a single comma between rows: the JSON document's frame. */
  readonly isJson: boolean;
  readonly open: Buffer;
  readonly close: Buffer;
  readonly separator: Buffer;
  /** Bytes the frame adds to one row at most (separator, open and close): part of every row's room. */
  readonly bytes: number;
}

/** NDJSON's frame for one table's rows: a line `{"datasource":…,"table":…,"row":{…}}` each. */
export function ndjsonRowFrame(datasource: string, table: string): RowFrame {
  return { open: `{"datasource":${JSON.stringify(datasource)},"table":${JSON.stringify(table)},"row":`, close: '}', separator: '\n' };
}

/** Whether `frame` is the JSON document's frame (by value: a format may build its own equal one). */
export function isJsonRowFrame(frame: RowFrame): boolean {
  return frame.open === '' && frame.close === '' && frame.separator === ',';
}

function encode(frame: RowFrame): RowFrameBytes {
  const open = Buffer.from(frame.open, 'utf8');
  const close = Buffer.from(frame.close, 'utf8');
  const separator = Buffer.from(frame.separator, 'utf8');
  return { isJson: isJsonRowFrame(frame), open, close, separator, bytes: open.length + close.length + separator.length };
}

export const JSON_ROW_FRAME_BYTES: RowFrameBytes = encode(JSON_ROW_FRAME);

/** The request's frame as bytes; absent: the JSON document's. */
export function rowFrameBytes(frame: RowFrame | undefined): RowFrameBytes {
  return frame === undefined || isJsonRowFrame(frame) ? JSON_ROW_FRAME_BYTES : encode(frame);
}

/** Below this a byte loop beats a native copy's call (a frame's open is typically ~40 bytes). */
const NATIVE_COPY_MIN = 64;

/** Writes `bytes` at `pos` (the caller has made room); returns the position after them. */
export function writeFrameBytes(bytes: Buffer, out: Buffer, pos: number): number {
  if (bytes.length >= NATIVE_COPY_MIN) return pos + bytes.copy(out, pos);
  for (let i = 0; i < bytes.length; i++) out[pos++] = bytes[i];
  return pos;
}
