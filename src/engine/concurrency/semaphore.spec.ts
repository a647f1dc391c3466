import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

describe('Semaphore', () => {
  it('serves waiters in order and hands a released permit to the next one', async () => {
    const semaphore = new Semaphore(1);
    const order: number[] = [];
    await semaphore.acquire();
    const waiting = [1, 2].map((n) => semaphore.acquire().then(() => order.push(n)));
    semaphore.release();
    await waiting[0];
    semaphore.release();
    await waiting[1];
    expect(order).toEqual([1, 2]);
  });

  it('drops an aborted waiter from the line, so the permit goes to the next', async () => {
    const semaphore = new Semaphore(1);
    await semaphore.acquire();
    const controller = new AbortController();
    const aborted = semaphore.acquire(controller.signal);
    const next = semaphore.acquire();
    controller.abort(new Error('gave up'));
    await expect(aborted).rejects.toThrow('gave up');
    semaphore.release();
    await expect(next).resolves.toBeUndefined();
    semaphore.release();
    expect(semaphore.idle(1)).toBe(true);
  });
});
