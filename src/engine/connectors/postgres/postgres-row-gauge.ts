import type { Readable } from 'node:stream';
import type { CatalogTooLargeError } from '../../errors/engine-errors.js';
import type { CatalogBudget } from '../shared/catalog-budget.js';
import type { ReadBudget, ValueTooLargeError } from '../shared/read-budget.js';
import { type FrameFormat, RowSizeGuard } from '../shared/wire-frames.js';

/** Backend messages: 1 type byte, then a 4-byte big-endian length that counts itself. */
const BACKEND_MESSAGE: FrameFormat = {
  headerBytes: 5,
  bodyBytes: (bytes, offset) => bytes.readUInt32BE(offset + 1) - 4,
};
const DATA_ROW = 0x44; // 'D'

/**
 * Watches the DataRow messages of one connection as their headers arrive. pg buffers a whole
 * message before parsing it, so a 1 GB value would be in memory before any row reached us: while a
 * read is armed, a DataRow larger than what the result may still hold is refused after one socket
 * chunk of it (the caller cuts the connection). It also counts the bytes of the rows received,
 * which size the next fetch. While a discovery is armed, every message the server sends is
 * charged to its catalog budget as its header arrives, so an endless or huge catalog is refused
 * before pg has buffered it.
 */
export class PostgresRowGauge {
  /** Bytes of DataRow bodies received since the connection opened. */
  rowBytes = 0;
  private readonly guard: RowSizeGuard;

  constructor(stream: Readable, onOversize: (error: ValueTooLargeError) => void) {
    this.guard = new RowSizeGuard(
      stream,
      BACKEND_MESSAGE,
      (bytes, offset, body) => {
        if (bytes[offset] !== DATA_ROW) return undefined;
        this.rowBytes += body;
        return body;
      },
      onOversize,
    );
  }

  arm(table: string, budget: ReadBudget): void {
    this.guard.arm(table, budget);
  }

  disarm(): void {
    this.guard.disarm();
  }

  /** Charges every message to `budget` until disarmCatalog; `onOver` must cut the connection. */
  armCatalog(budget: CatalogBudget, onOver: (error: CatalogTooLargeError) => void): void {
    this.guard.armCatalog(budget, onOver);
  }

  disarmCatalog(): void {
    this.guard.disarmCatalog();
  }

  /** For a COPY, which reads the socket itself and bounds its rows on its own. */
  detach(): void {
    this.guard.detach();
  }
}
