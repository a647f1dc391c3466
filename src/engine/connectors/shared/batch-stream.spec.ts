import { describe, expect, it } from 'vitest';
import { BatchStream } from './batch-stream.js';

class TestStream extends BatchStream {
  resumed = 0;
  releases = 0;
  wait(): Promise<void> {
    return this.rowsArrive();
  }
  check(): void {
    this.throwIfFailed();
  }
  end(error?: unknown): void {
    this.finish(error);
  }
  protected resumeRows(): void {
    this.resumed++;
  }
  protected override released(): void {
    this.releases++;
  }
}

describe('BatchStream', () => {
  it('ends once, keeps the first failure, lets go of its resources and wakes the waiting consumer', async () => {
    const stream = new TestStream();
    const waiting = stream.wait();
    expect(stream.resumed).toBe(1);
    stream.end(new Error('first'));
    stream.abandon(new Error('second'));
    await waiting;
    await stream.finished;
    expect(stream.isFinished).toBe(true);
    expect(stream.releases).toBe(1);
    expect(() => stream.check()).toThrow('first');
  });

  it('ends without a failure when the rows are done', async () => {
    const stream = new TestStream();
    stream.end();
    await stream.finished;
    expect(() => stream.check()).not.toThrow();
  });
});
