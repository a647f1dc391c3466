import { EntitySchema } from 'typeorm';
import { columnTypes, type DatabaseKind } from '../persistence/database-kind.js';
import type { CursorMark } from '../engine/request/incremental-request.js';

/** A stream's marks as stored: `marks[configName][tableKey]`. */
export type StoredMarks = Record<string, Record<string, CursorMark>>;

/**
 * One incremental stream of a product (docs/incremental.md): where each of its tables stands.
 * Written by the completion of a job of the stream (in the transaction that completes it) and by
 * PUT …/marks; removed by DELETE (a reset).
 */
export interface StreamRecord {
  /** Lower-cased, as jobs store `metadata.source`. */
  productName: string;
  name: string;
  marks: StoredMarks;
  /** The job whose completion last wrote the marks; null once they were PUT. */
  lastJobId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const STREAM_ENTITY = 'Stream';

export function streamEntity(kind: DatabaseKind): EntitySchema<StreamRecord> {
  const types = columnTypes(kind);
  return new EntitySchema<StreamRecord>({
    name: STREAM_ENTITY,
    tableName: 'streams',
    columns: {
      productName: { type: 'varchar', length: 100, name: 'product_name', primary: true },
      name: { type: 'varchar', length: 128, primary: true },
      marks: { type: types.json },
      lastJobId: { type: 'varchar', length: 36, name: 'last_job_id', nullable: true },
      createdAt: { type: types.timestamp, name: 'created_at' },
      updatedAt: { type: types.timestamp, name: 'updated_at' },
    },
  });
}
