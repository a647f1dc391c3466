import type { ProgressRecorder } from '../executor/extraction-executor.js';
import type { ExtractionPlan } from '../executor/extraction-plan.js';
import type { PlannedTable, ProgressEvent } from '../extract-request.js';

/** The executor's counters as the events a caller of `extract` listens to, with running totals. */
export class ProgressRelay implements ProgressRecorder {
  private rowsSoFar = 0;
  private bytesSoFar = 0;
  private readonly rowsByTable = new Map<string, number>();

  constructor(private readonly emit: (event: ProgressEvent) => void) {}

  planned(plan: ExtractionPlan): void {
    const tables: PlannedTable[] = plan.datasources.flatMap((datasource) =>
      datasource.tables.map((request) => ({
        datasource: datasource.configName,
        table: request.table.key,
        engine: datasource.datasource.type,
      })),
    );
    this.emit({ type: 'planned', tables });
  }

  tableStarted(datasource: string, table: string): void {
    this.emit({ type: 'table', datasource, table, status: 'reading', rows: 0 });
  }

  rowsRead(datasource: string, table: string, rows: number, engine: string): void {
    this.rowsSoFar += rows;
    const key = `${datasource}\0${table}`;
    this.rowsByTable.set(key, (this.rowsByTable.get(key) ?? 0) + rows);
    this.emit({ type: 'rows', datasource, table, engine, rows, totalRows: this.rowsSoFar });
  }

  tableDone(datasource: string, table: string): void {
    this.emit({ type: 'table', datasource, table, status: 'done', rows: this.rowsByTable.get(`${datasource}\0${table}`) ?? 0 });
  }

  bytesWritten(bytes: number, engine?: string): void {
    this.bytesSoFar += bytes;
    this.emit(
      engine === undefined
        ? { type: 'bytes', bytes, totalBytes: this.bytesSoFar }
        : { type: 'bytes', bytes, totalBytes: this.bytesSoFar, engine },
    );
  }
}
