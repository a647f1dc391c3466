import type { Clock } from '../common/clock/clock.js';
import type { PlannedTable, ProgressEvent } from '../engine/extract-request.js';
import { ProgressTally } from '../engine/output/progress-tally.js';
import type { JobProgress } from '../job/job.entity.js';

/**
 * One job's progress, kept in memory by its worker from the engine's progress events and written
 * with each lease renewal (at most once a second), so progress costs no write per batch.
 */
export class JobProgressTracker {
  private readonly tally = new ProgressTally();

  constructor(
    planned: readonly PlannedTable[],
    private readonly startedAt: Date,
    private readonly clock: Clock,
  ) {
    this.tally.record({ type: 'planned', tables: planned });
  }

  record(event: ProgressEvent): void {
    this.tally.record(event);
  }

  snapshot(): JobProgress {
    const tables: JobProgress['tables'] = {};
    for (const [configName, byTable] of this.tally.tables) {
      tables[configName] = Object.fromEntries([...byTable].map(([key, table]) => [key, { ...table }]));
    }
    return {
      rowsRead: this.tally.rows,
      bytesWritten: this.tally.bytes,
      startedAt: this.startedAt.toISOString(),
      updatedAt: this.clock.now().toISOString(),
      tables,
    };
  }
}
