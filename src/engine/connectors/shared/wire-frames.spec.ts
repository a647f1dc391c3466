import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type FrameFormat, FrameWatcher } from './wire-frames.js';

/** PostgreSQL-style framing: type byte + 4-byte big-endian length counting itself. */
const PG: FrameFormat = { headerBytes: 5, bodyBytes: (b, o) => b.readUInt32BE(o + 1) - 4 };
const pgMessage = (type: string, body: Buffer): Buffer => {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};
/** Writes `bytes` to the stream in pieces of `size` (1 splits every header). */
const feed = (stream: PassThrough, bytes: Buffer, size: number): void => {
  for (let i = 0; i < bytes.length; i += size) stream.emit('data', bytes.subarray(i, i + size));
};

describe('FrameWatcher', () => {
  const stream = Buffer.concat([
    pgMessage('T', Buffer.alloc(10)),
    pgMessage('D', Buffer.alloc(3)),
    pgMessage('D', Buffer.alloc(70_000)),
    pgMessage('C', Buffer.alloc(0)),
  ]);

  it.each([1, 2, 4, 5, 7, 4096, stream.length])('sees every header in order whatever the chunking (%i bytes)', (size) => {
    const seen: [string, number][] = [];
    const socket = new PassThrough();
    const watcher = new FrameWatcher(socket, PG, (bytes, offset, body) => seen.push([String.fromCharCode(bytes[offset]), body]));
    feed(socket, stream, size);
    expect(seen).toEqual([
      ['T', 10],
      ['D', 3],
      ['D', 70_000],
      ['C', 0],
    ]);
    watcher.detach();
  });

  it('runs before the listeners already on the stream, and sees nothing once detached', () => {
    const order: string[] = [];
    const socket = new PassThrough();
    socket.on('data', () => order.push('driver'));
    const watcher = new FrameWatcher(socket, PG, () => order.push('watcher'));
    socket.emit('data', pgMessage('Z', Buffer.alloc(1)));
    watcher.detach();
    socket.emit('data', pgMessage('Z', Buffer.alloc(1)));
    expect(order).toEqual(['watcher', 'driver', 'driver']);
  });
});
