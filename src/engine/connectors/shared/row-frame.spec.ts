import { describe, expect, it } from 'vitest';
import { ndjsonFrame } from '../testing/row-frames.js';
import { JSON_ROW_FRAME_BYTES, rowFrameBytes, writeFrameBytes } from './row-frame.js';

describe('rowFrameBytes', () => {
  it('recognises the JSON frame by value, and encodes any other once', () => {
    expect(rowFrameBytes(undefined)).toBe(JSON_ROW_FRAME_BYTES);
    expect(rowFrameBytes({ open: '', close: '', separator: ',' })).toBe(JSON_ROW_FRAME_BYTES);
    const bytes = rowFrameBytes(ndjsonFrame('dé', 't'));
    expect(bytes.isJson).toBe(false);
    expect(bytes.open.toString('utf8')).toBe('{"datasource":"dé","table":"t","row":');
    expect(bytes.bytes).toBe(Buffer.byteLength('{"datasource":"dé","table":"t","row":}\n'));
    expect(rowFrameBytes({ open: '', close: '', separator: '\n' }).isJson).toBe(false);
  });

  it('writes short and long frame bytes alike', () => {
    for (const length of [0, 1, 63, 64, 300]) {
      const bytes = Buffer.from('x'.repeat(length), 'utf8');
      const out = Buffer.alloc(bytes.length + 4, 0x2e);
      expect(writeFrameBytes(bytes, out, 2)).toBe(2 + bytes.length);
      expect(out.toString('utf8')).toBe('..' + bytes.toString('utf8') + '..');
    }
  });
});
