import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ReadBudget, ValueTooLargeError } from '../shared/read-budget.js';
import { mySqlPacketGuard } from './mysql-packet-gauge.js';

const mysqlPacket = (length: number, body = Buffer.alloc(length)): Buffer => {
  const header = Buffer.from([length & 0xff, (length >> 8) & 0xff, (length >> 16) & 0xff, 0]);
  return Buffer.concat([header, body]);
};
const budget = (remaining: number): ReadBudget => ({ batchBytes: 1 << 22, batchRows: 2_000, remainingBytes: () => remaining });

describe('mySqlPacketGuard', () => {
  it('adds up the parts of a row over 16 MiB and refuses it once they pass the remaining bytes', () => {
    const socket = new PassThrough();
    const refused: ValueTooLargeError[] = [];
    const guard = mySqlPacketGuard(socket, (error) => refused.push(error));
    guard.arm('t', budget(20 * 1024 * 1024));
    socket.emit('data', mysqlPacket(10));
    const max = 0xff_ff_ff;
    // The first 16 MiB part is under the limit; the second part's header makes it 16 MiB + 8 MiB.
    socket.emit('data', mysqlPacket(max, Buffer.alloc(max)));
    expect(refused).toHaveLength(0);
    socket.emit('data', mysqlPacket(8 * 1024 * 1024).subarray(0, 4));
    expect(refused).toHaveLength(1);
    expect(refused[0].message).toContain(`a value of ${max + 8 * 1024 * 1024} bytes`);
  });

  it('does nothing while disarmed', () => {
    const socket = new PassThrough();
    const refused: ValueTooLargeError[] = [];
    const guard = mySqlPacketGuard(socket, (error) => refused.push(error));
    guard.arm('t', budget(10));
    guard.disarm();
    socket.emit('data', mysqlPacket(100));
    expect(refused).toHaveLength(0);
  });
});
