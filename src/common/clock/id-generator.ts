import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { v7 as uuidv7 } from 'uuid';

/** New identifiers (job ids, connection ids, worker and relay ids), injectable for specs. */
export abstract class IdGenerator {
  /** A random (v4) UUID. */
  abstract uuid(): string;

  /** A time-ordered (v7) UUID, for record ids: a newer record sorts after an older one in an index. */
  abstract orderedUuid(): string;

  /**
   * `host:pid:xxxxxxxx`, how this process signs the rows it holds (job leases, outbox claims): an
   * operator reading a lease can tell which process holds it, and two processes never share one.
   */
  processTag(): string {
    return `${hostname()}:${process.pid}:${this.uuid().slice(0, 8)}`;
  }
}

export class RandomIdGenerator extends IdGenerator {
  uuid(): string {
    return randomUUID();
  }

  orderedUuid(): string {
    return uuidv7();
  }
}
