import type { EntityManager } from 'typeorm';
import type { ResultPart } from '../engine/formats/result-parts.js';
import type { NewOutboxEvent } from '../events/outbox.repository.js';
import type { JobIncremental } from './job.entity.js';

export interface CompletedResult {
  readonly resultPath: string;
  readonly resultHmac: string;
  /** Master-key version the result was sealed with; a consumer needs that version's keys to open it. */
  readonly resultKeyVersion: string;
  readonly resultSha256: string;
  readonly resultSizeBytes: number;
  readonly resultRowCount: number;
  readonly resultRowCounts: Record<string, Record<string, number>>;
  /** A per-table result's parts, in result order; resultPath and the digests above are then the manifest's. */
  readonly resultParts?: ResultPart[];
  /** An incremental job's request and starting marks with, now, the ranges it read. */
  readonly incremental?: JobIncremental;
  /** When the worker finished, as its job.completed event says; the store's clock when not given. */
  readonly completedAt?: Date;
}

/**
 * Work of a completion inside its transaction, once the claim is confirmed on the locked row and
 * before the result is published: committing a stream's marks. If it throws, nothing commits.
 */
export type CompletionStep = (manager: EntityManager) => Promise<void>;

/** job.completed / job.failed, written to the outbox with the terminal status. */
export type TerminalEvent = NewOutboxEvent;

/**
 * One claim of a job: the worker that made it and the attempt number it got. The pair is the fencing
 * token: a worker whose lease ran out and whose job someone else claimed no longer matches it.
 */
export interface JobClaim {
  readonly workerId: string;
  readonly attempt: number;
}
