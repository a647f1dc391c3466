import type { JobProgress, TableProgress } from '../job/job.entity.js';
import type { ExtractionPlan } from '../engine/executor/extraction-plan.js';

/** What the executor reports as it goes: plain counter updates, no I/O (the lease writes them). */
export interface ProgressRecorder {
  tableStarted(configName: string, table: string): void;
  rowsRead(configName: string, table: string, rows: number): void;
  tableDone(configName: string, table: string): void;
  bytesWritten(bytes: number): void;
}

/**
 * One job's progress, kept in memory by its worker and written with each lease renewal (at most
 * once a second), so progress costs no write per batch.
 */
export class JobProgressTracker implements ProgressRecorder {
  private readonly tables: Record<string, Record<string, TableProgress>> = {};
  private rows = 0;
  private bytes = 0;

  constructor(
    plan: ExtractionPlan,
    private readonly startedAt: Date,
    private readonly clock: () => Date = () => new Date(),
  ) {
    for (const datasource of plan.datasources) {
      const tables: Record<string, TableProgress> = {};
      for (const request of datasource.tables) tables[request.table.key] = { status: 'pending', rows: 0 };
      this.tables[datasource.configName] = tables;
    }
  }

  tableStarted(configName: string, table: string): void {
    this.table(configName, table).status = 'reading';
  }

  rowsRead(configName: string, table: string, rows: number): void {
    this.table(configName, table).rows += rows;
    this.rows += rows;
  }

  tableDone(configName: string, table: string): void {
    this.table(configName, table).status = 'done';
  }

  bytesWritten(bytes: number): void {
    this.bytes += bytes;
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
