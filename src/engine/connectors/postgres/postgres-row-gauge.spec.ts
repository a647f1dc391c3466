import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ReadBudget, ValueTooLargeError } from '../shared/read-budget.js';
import { PostgresRowGauge } from './postgres-row-gauge.js';

const pgMessage = (type: string, body: Buffer): Buffer => {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};
const budget = (remaining: number): ReadBudget => ({ batchBytes: 1 << 22, batchRows: 2_000, remainingBytes: () => remaining });

describe('PostgresRowGauge', () => {
  it('counts DataRow bytes and refuses, while armed, a DataRow over the remaining bytes from its header alone', () => {
    const socket = new PassThrough();
    const refused: ValueTooLargeError[] = [];
    const gauge = new PostgresRowGauge(socket, (error) => refused.push(error));
    socket.emit('data', Buffer.concat([pgMessage('D', Buffer.alloc(100)), pgMessage('C', Buffer.alloc(200))]));
    expect(gauge.rowBytes).toBe(100);

    socket.emit('data', pgMessage('D', Buffer.alloc(5_000)));
    expect(refused).toHaveLength(0);
    gauge.arm('t', budget(1_000));
    socket.emit('data', pgMessage('D', Buffer.alloc(900)));
    expect(refused).toHaveLength(0);
    // Only the header and the first bytes of a 64 KiB row have arrived.
    const big = pgMessage('D', Buffer.alloc(65_536));
    socket.emit('data', big.subarray(0, 16));
    expect(refused).toHaveLength(1);
    expect(refused[0].message).toContain('a value of 65536 bytes');
    expect(refused[0].message).toContain('(1000 bytes)');
  });
});
