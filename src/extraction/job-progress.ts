import type { PlannedTable, ProgressEvent } from '../engine/extract-request.js';
import type { JobProgress, TableProgress } from '../job/job.entity.js';

/**
 * One job's progress, kept in memory by its worker from the engine's progress events and written
 * with each lease renewal (at most once a second), so progress costs no write per batch.
 */
export class JobProgressTracker {
  private readonly tables: Record<string, Record<string, TableProgress>> = {};
  private rows = 0;
  private bytes = 0;

  constructor(
    planned: readonly PlannedTable[],
    private readonly startedAt: Date,
    private readonly clock: () => Date = () => new Date(),
  ) {
    for (const { datasource, table } of planned) this.table(datasource, table);
  }

  record(event: ProgressEvent): void {
    switch (event.type) {
      case 'table':
        this.table(event.datasource, event.table).status = event.status;
        break;
      case 'rows':
        this.table(event.datasource, event.table).rows += event.rows;
        this.rows += event.rows;
        break;
      case 'bytes':
        this.bytes += event.bytes;
        break;
      case 'planned':
        break;
    }
  }

  snapshot(): JobProgress {
    const tables: JobProgress['tables'] = {};
    for (const [configName, byTable] of Object.entries(this.tables)) {
      tables[configName] = Object.fromEntries(Object.entries(byTable).map(([key, table]) => [key, { ...table }]));
    }
    return {
      rowsRead: this.rows,
      bytesWritten: this.bytes,
      startedAt: this.startedAt.toISOString(),
      updatedAt: this.clock().toISOString(),
      tables,
    };
  }

  private table(configName: string, table: string): TableProgress {
    const byTable = (this.tables[configName] ??= {});
    return (byTable[table] ??= { status: 'pending', rows: 0 });
  }
}
