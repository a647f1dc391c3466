import { randomUUID } from 'node:crypto';

/** New identifiers (job ids, connection ids, worker and relay ids), injectable for specs. */
export abstract class IdGenerator {
  abstract uuid(): string;
}

export class RandomIdGenerator extends IdGenerator {
  uuid(): string {
    return randomUUID();
  }
}
