import type { ProgressEvent, TableStatus } from '../extract-request.js';

export interface TableTally {
  status: TableStatus;
  rows: number;
}

/**
 * Where an extraction stands, summed from its progress events: each table's status and rows (in the
 * plan's order), all rows read and all bytes written. What a job's progress and the command's
 * display are both made of.
 */
export class ProgressTally {
  /** datasource → result key → its tally, in the order the plan lists them. */
  readonly tables = new Map<string, Map<string, TableTally>>();
  rows = 0;
  bytes = 0;
  /** True once every datasource answered and the request was checked against their schemas. */
  planned = false;

  record(event: ProgressEvent): void {
    switch (event.type) {
      case 'planned':
        for (const { datasource, table } of event.tables) this.table(datasource, table);
        this.planned = true;
        break;
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
    }
  }

  private table(datasource: string, table: string): TableTally {
    let byTable = this.tables.get(datasource);
    if (!byTable) this.tables.set(datasource, (byTable = new Map()));
    let tally = byTable.get(table);
    if (!tally) byTable.set(table, (tally = { status: 'pending', rows: 0 }));
    return tally;
  }
}
