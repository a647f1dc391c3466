import { describe, expect, it } from 'vitest';
import { FetCode } from '../../errors/fet-code.js';
import { ByteBatcher, rawValueBytes } from './byte-batcher.js';
import { type ReadBudget, ValueTooLargeError } from './read-budget.js';

const budget = (batchBytes: number, batchRows = 2_000, remaining = Number.MAX_SAFE_INTEGER): ReadBudget => ({
  batchBytes,
  batchRows,
  remainingBytes: () => remaining,
});

describe('rawValueBytes', () => {
  it('counts string length, buffer length, nothing for null and 8 for other values', () => {
    expect(rawValueBytes('abc')).toBe(3);
    expect(rawValueBytes(Buffer.alloc(10))).toBe(10);
    expect(rawValueBytes(null)).toBe(0);
    expect(rawValueBytes(undefined)).toBe(0);
    expect(rawValueBytes(42)).toBe(8);
  });
});

describe('ByteBatcher', () => {
  it('is full once its rows hold batchBytes, or number batchRows', () => {
    const byBytes = new ByteBatcher(budget(100), 't');
    expect(byBytes.add(['x'.repeat(60)])).toBe(false);
    expect(byBytes.add(['x'.repeat(40), null])).toBe(true);
    byBytes.reset();
    expect(byBytes.isFull).toBe(false);

    const byRows = new ByteBatcher(budget(1 << 30, 2), 't');
    expect(byRows.add([1])).toBe(false);
    expect(byRows.add([2])).toBe(true);
  });

  it('refuses a row whose largest value exceeds what the result may still hold', () => {
    const batcher = new ByteBatcher(budget(1 << 20, 2_000, 50), 'orders');
    expect(batcher.add(['x'.repeat(30), 'y'.repeat(30)])).toBe(false);
    const error = (() => {
      try {
        batcher.add(['x'.repeat(51)]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValueTooLargeError);
    expect(error).toMatchObject({ code: FetCode.ResultTooLarge });
    expect((error as Error).message).toContain(`a value of 51 bytes in table 'orders'`);
  });
});
