import { EventEmitter } from 'node:events';
import type { Connection } from 'mysql2';
import { describe, expect, it } from 'vitest';
import { type ReadBudget, ValueTooLargeError } from '../shared/read-budget.js';
import { MySqlRowStream } from './mysql-row-stream.js';

/** The parts of a mysql2 callback connection the stream uses; rows are pushed by the test. */
class FakeConnection extends EventEmitter {
  readonly query$ = new EventEmitter();
  paused = false;
  query(): EventEmitter {
    return this.query$;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
}

const budget = (batchBytes: number, remaining = Number.MAX_SAFE_INTEGER): ReadBudget => ({
  batchBytes,
  batchRows: 2_000,
  remainingBytes: () => remaining,
});

const start = (b: ReadBudget): { connection: FakeConnection; stream: MySqlRowStream } => {
  const connection = new FakeConnection();
  const stream = new MySqlRowStream(connection as unknown as Connection, 'SELECT 1', b, 't');
  return { connection, stream };
};

describe('MySqlRowStream', () => {
  it('pauses the connection and hands the batch on once its rows hold batchBytes', async () => {
    const { connection, stream } = start(budget(100));
    const first = stream.next();
    connection.query$.emit('result', [1, 'x'.repeat(60)]);
    expect(connection.paused).toBe(false);
    connection.query$.emit('result', [2, 'x'.repeat(60)]);
    expect(connection.paused).toBe(true);
    expect((await first).map((row) => row[0])).toEqual([1, 2]);
    const second = stream.next();
    expect(connection.paused).toBe(false);
    connection.query$.emit('result', [3, 'y']);
    connection.query$.emit('end');
    expect((await second).map((row) => row[0])).toEqual([3]);
    expect(await stream.next()).toEqual([]);
  });

  it('fails with ValueTooLargeError on a value over the remaining bytes, drops the rest and leaves the stop to the caller', async () => {
    const { connection, stream } = start(budget(1 << 20, 10));
    const first = stream.next();
    connection.query$.emit('result', [1, 'short']);
    connection.query$.emit('result', [2, 'x'.repeat(11)]);
    await expect(first).rejects.toBeInstanceOf(ValueTooLargeError);
    // Still running on the server: not finished until the caller's KILL ends it, and what keeps
    // coming is read and dropped so the server can get to the kill.
    expect(stream.isFinished).toBe(false);
    expect(connection.paused).toBe(false);
    connection.query$.emit('result', [3, 'more']);
    connection.query$.emit('error', Object.assign(new Error('Query execution was interrupted'), { code: 'ER_QUERY_INTERRUPTED' }));
    await stream.finished;
    await expect(stream.next()).rejects.toBeInstanceOf(ValueTooLargeError);
  });
});
