import { type ReadBudget, ValueTooLargeError } from './read-budget.js';

/**
 * Bytes of one raw driver value, cheaply: a string's length (its UTF-8 size is at least that and at
 * most three times it), a Buffer's length, 8 for anything else (numbers, booleans, dates).
 */
export function rawValueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || value === undefined) return 0;
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

/** Throws ValueTooLargeError when one value (or row) of `bytes` exceeds what the result may still hold. */
export function assertFitsResult(budget: ReadBudget, table: string, bytes: number): void {
  const remaining = budget.remainingBytes();
  if (bytes > remaining) throw new ValueTooLargeError(table, bytes, remaining);
}

/**
 * The batch a streaming connector is filling: full once its rows hold `batchBytes` (estimated from
 * the raw values) or number `batchRows`. Each row's largest value is checked against what the
 * result may still hold as it arrives, before it is rendered.
 */
export class ByteBatcher {
  private rows = 0;
  private bytes = 0;

  constructor(
    private readonly budget: ReadBudget,
    private readonly table: string,
  ) {}

  get isFull(): boolean {
    return this.rows >= this.budget.batchRows || this.bytes >= this.budget.batchBytes;
  }

  /** Counts one row; true once the batch is full. Throws ValueTooLargeError for an oversized value. */
  add(values: readonly unknown[]): boolean {
    let total = 0;
    let largest = 0;
    for (let i = 0; i < values.length; i++) {
      const bytes = rawValueBytes(values[i]);
      total += bytes;
      if (bytes > largest) largest = bytes;
    }
    assertFitsResult(this.budget, this.table, largest);
    this.rows++;
    this.bytes += total;
    return this.isFull;
  }

  /** Starts the next batch. */
  reset(): void {
    this.rows = 0;
    this.bytes = 0;
  }
}
