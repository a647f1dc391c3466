import type { Readable } from 'node:stream';
import type { ValueTooLargeError } from '../shared/read-budget.js';
import { type FrameFormat, RowSizeGuard } from '../shared/wire-frames.js';

/** Packets: a 3-byte little-endian payload length and a sequence byte (no compression is negotiated). */
const PACKET: FrameFormat = {
  headerBytes: 4,
  bodyBytes: (bytes, offset) => bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16),
};
/** A payload this long continues in the next packet (rows over 16 MiB span several). */
const MAX_PAYLOAD = 0xff_ff_ff;

/**
 * A RowSizeGuard on one connection's packets. mysql2 collects a whole packet (and every part of a
 * row over 16 MiB) before it parses the row, so a huge value would be in memory before the row
 * event; the header says how large it will be first. In a result set every packet after the
 * column definitions is one row; the small metadata packets never come near a result limit.
 */
export function mySqlPacketGuard(stream: Readable, onOversize: (error: ValueTooLargeError) => void): RowSizeGuard {
  // Payload bytes of the logical packet arriving, over all its parts.
  let logical = 0;
  return new RowSizeGuard(
    stream,
    PACKET,
    (_bytes, _offset, body) => {
      logical += body;
      const size = logical;
      if (body < MAX_PAYLOAD) logical = 0;
      return size;
    },
    onOversize,
  );
}
