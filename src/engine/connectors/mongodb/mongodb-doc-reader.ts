import type { Document, FindCursor } from 'mongodb';
import { mongodb } from './mongodb-driver.js';
import { assertFitsResult } from '../shared/byte-batcher.js';
import { FetchSizer } from '../shared/fetch-sizer.js';
import type { ReadBudget } from '../shared/read-budget.js';
import { BATCH_DOCS } from './mongodb-query.js';
import { BSON_READ_OPTIONS } from './mongodb-values.js';

/** What the driver would decode with (its defaults for our read options, UTF-8 checked). */
const DECODE_OPTIONS = { ...BSON_READ_OPTIONS, validation: { utf8: true } } as const;

/** The find options that make a cursor hand over raw documents, for MongoDocReader. */
export const RAW_DOCUMENTS = { raw: true } as const;

/** The internal option getMore reads its batch size from (no public setter once a cursor started). */
type SizableCursor = { cursorOptions?: { batchSize?: number } };

/**
 * A find cursor opened with RAW_DOCUMENTS, decoded here: each document's BSON size is known before
 * it is decoded or rendered, so one larger than what the result may still hold fails the read
 * (ValueTooLargeError) first. The driver has still received it whole (documents are at most
 * 16 MiB, the server batch it came in at most 48 MB); nothing here can see it earlier.
 *
 * Each getMore asks for as many documents as fit the budget's `batchBytes` at the sizes seen so
 * far (never more than BATCH_DOCS), on top of the server's own 16 MiB cap per batch.
 */
export class MongoDocReader {
  private readonly sizer: FetchSizer;
  private docs = 0;
  private bytes = 0;
  private started = false;

  constructor(
    private readonly cursor: FindCursor<Document>,
    private readonly budget: ReadBudget,
    private readonly table: string,
  ) {
    this.sizer = new FetchSizer(budget, firstBatchDocs(budget));
  }

  /** Up to `max` documents already received, decoded; no I/O. */
  buffered(max: number): Document[] {
    const raw = this.cursor.readBufferedDocuments(max) as unknown as Uint8Array[];
    const out = new Array<Document>(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = this.decode(raw[i]);
    return out;
  }

  /** Starts the next server batch (the find, then getMores) and returns its first document; null at the end. */
  async next(): Promise<Document | null> {
    if (this.started) {
      this.sizer.record(this.docs, this.bytes);
      this.docs = 0;
      this.bytes = 0;
      const options = (this.cursor as unknown as SizableCursor).cursorOptions;
      if (options !== undefined) options.batchSize = Math.min(BATCH_DOCS, this.sizer.next);
    }
    this.started = true;
    const raw = (await this.cursor.next()) as unknown as Uint8Array | null;
    return raw === null ? null : this.decode(raw);
  }

  private decode(raw: Uint8Array): Document {
    this.docs++;
    this.bytes += raw.byteLength;
    assertFitsResult(this.budget, this.table, raw.byteLength);
    return mongodb().BSON.deserialize(raw, DECODE_OPTIONS);
  }
}

/** The find's batch size: BATCH_DOCS, or fewer when the budget caps rows lower. */
export function firstBatchDocs(budget: ReadBudget): number {
  return Math.max(1, Math.min(BATCH_DOCS, budget.batchRows));
}
