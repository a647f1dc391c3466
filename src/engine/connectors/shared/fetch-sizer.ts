import { FIRST_FETCH_ROWS, nextFetchRows, type ReadBudget } from './read-budget.js';

/**
 * Rows to ask for in each round trip of a fetching connector (a cursor read, a fetch of n rows):
 * `first` (FIRST_FETCH_ROWS unless told), then as many as fit `batchBytes` (nextFetchRows). The row size used is
 * the larger of the mean so far and the last fetch's mean, so rows that grow part-way through a
 * table shrink the next fetch at once instead of after the mean has caught up.
 */
export class FetchSizer {
  private asked: number;
  private rows = 0;
  private bytes = 0;

  constructor(
    private readonly budget: ReadBudget,
    first = FIRST_FETCH_ROWS,
  ) {
    this.asked = Math.max(1, Math.min(first, budget.batchRows));
  }

  /** Rows to ask for in the next fetch. */
  get next(): number {
    return this.asked;
  }

  /** Records what the fetch just done returned (`bytes`: its rows' size, measured or estimated). */
  record(rows: number, bytes: number): void {
    this.rows += rows;
    this.bytes += bytes;
    const lastIsLarger = rows > 0 && bytes * this.rows > this.bytes * rows;
    this.asked = lastIsLarger
      ? nextFetchRows(this.budget, this.asked, rows, bytes)
      : nextFetchRows(this.budget, this.asked, this.rows, this.bytes);
  }
}
