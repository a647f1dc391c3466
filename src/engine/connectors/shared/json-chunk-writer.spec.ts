import { describe, expect, it } from 'vitest';
import { JsonChunkWriter } from './json-chunk-writer.js';

class TestWriter extends JsonChunkWriter {
  constructor(copyMostlyEmpty: boolean) {
    super(8, copyMostlyEmpty);
  }
  row(text: string): void {
    if (this.pos + text.length > this.out.length) this.grow(this.pos + text.length);
    this.pos += this.out.write(text, this.pos, 'latin1');
    this.chunkRows++;
  }
  buffer(): Buffer {
    return this.out;
  }
  flush(): void {
    this.flushChunk();
  }
  take() {
    return this.takeChunks();
  }
}

describe('JsonChunkWriter', () => {
  it('hands chunks on whole and reuses a released buffer of the usual size', () => {
    const writer = new TestWriter(false);
    const first = writer.buffer();
    writer.row('[1]');
    writer.flush();
    writer.flush();
    const [chunk] = writer.take();
    expect(chunk.json.toString()).toBe('[1]');
    expect(chunk.rowCount).toBe(1);
    expect(writer.take()).toEqual([]);
    chunk.release?.();
    chunk.release?.();
    writer.row('[2]');
    writer.flush();
    expect(writer.buffer()).toBe(first);
  });

  it('keeps a grown buffer out of reuse, and copies a mostly empty chunk when asked to', () => {
    const whole = new TestWriter(false);
    whole.row('[123456789]');
    whole.flush();
    expect(whole.take()[0].release).toBeUndefined();
    const copying = new TestWriter(true);
    const buffer = copying.buffer();
    copying.row('[]');
    copying.flush();
    const [chunk] = copying.take();
    expect(chunk.json.toString()).toBe('[]');
    expect(chunk.release).toBeUndefined();
    expect(copying.buffer()).toBe(buffer);
  });
});
