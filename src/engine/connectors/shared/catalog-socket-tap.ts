import type { Readable } from 'node:stream';
import type { CatalogTooLargeError } from '../../errors/engine-errors.js';
import type { CatalogBudget } from './catalog-budget.js';
import { SocketTap } from './socket-tap.js';

/**
 * Charges every byte a driver's socket receives to a discovery's catalog budget, before the
 * driver sees it, for drivers whose framing is not followed here (tedious). Past the budget it
 * detaches and calls `onOver`, which must cut the connection.
 */
export class CatalogSocketTap extends SocketTap {
  constructor(
    socket: Readable,
    private readonly budget: CatalogBudget,
    private readonly onOver: (error: CatalogTooLargeError) => void,
  ) {
    super(socket);
  }

  protected onChunk(chunk: Buffer): void {
    if (this.budget.tryCharge(chunk.length)) return;
    this.detach();
    this.onOver(this.budget.exceeded as CatalogTooLargeError);
  }
}
