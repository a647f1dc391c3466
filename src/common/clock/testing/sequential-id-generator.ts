import { IdGenerator } from '../id-generator.js';

/** Ids a spec can predict: the n-th id asked for is `0000000n-0000-…-00000000000n` (v4 or v7 shaped). */
export class SequentialIdGenerator extends IdGenerator {
  private issued = 0;

  uuid(): string {
    return this.next('4');
  }

  orderedUuid(): string {
    return this.next('7');
  }

  private next(version: string): string {
    this.issued += 1;
    return `${String(this.issued).padStart(8, '0')}-0000-${version}000-8000-${String(this.issued).padStart(12, '0')}`;
  }
}
