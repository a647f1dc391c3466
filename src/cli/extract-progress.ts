import type { PlannedTable, ProgressEvent, TableStatus } from '../engine/extract-request.js';

const MiB = 1024 * 1024;
const REDRAW_MS = 100;

/** What the display knows of an extraction so far. */
export interface ProgressState {
  readonly tables: ReadonlyArray<PlannedTable & { status: TableStatus; rows: number }>;
  readonly rows: number;
  readonly bytes: number;
  /** False until every datasource answered and the request was checked against their schemas. */
  readonly planned: boolean;
}

const count = (n: number) => n.toLocaleString('en-US');

/** The display's text: a headline (rows, MiB, rates, time) and one line per table, at most `maxTables` of them. */
export function renderProgress(state: ProgressState, elapsedMs: number, maxTables = 20): string {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  if (!state.planned) return `connecting and checking the request against the schemas… ${seconds.toFixed(1)} s`;
  const done = state.tables.filter((table) => table.status === 'done').length;
  const headline =
    `${count(state.rows)} rows · ${(state.bytes / MiB).toFixed(1)} MiB · ${count(Math.round(state.rows / seconds))} rows/s · ` +
    `${(state.bytes / MiB / seconds).toFixed(1)} MiB/s · ${done}/${state.tables.length} tables · ${seconds.toFixed(1)} s`;
  const names = state.tables.map((table) => `${table.datasource}.${table.table}`);
  const width = Math.min(48, Math.max(0, ...names.map((name) => name.length)));
  const shown = state.tables.slice(0, maxTables).map((table, index) => {
    const rows = table.status === 'pending' ? '' : count(table.rows).padStart(13);
    return `  ${names[index].padEnd(width)}  ${table.status.padEnd(7)}${rows}`;
  });
  const hidden = state.tables.length - shown.length;
  return [headline, ...shown, ...(hidden > 0 ? [`  … and ${hidden} more`] : [])].join('\n');
}

/** Draws a frame of text in place: log-update's function, or a test's. */
export interface FrameWriter {
  (text: string): void;
  done(): void;
}

/**
 * The progress display of `fetcher extract` on a terminal's stderr: redrawn at most every 100 ms
 * from the engine's progress events, and left on screen (its last frame) when the extraction ends.
 */
export class ExtractProgress {
  private readonly tables = new Map<string, PlannedTable & { status: TableStatus; rows: number }>();
  private rows = 0;
  private bytes = 0;
  private planned = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly frame: FrameWriter,
    private readonly maxTables: number,
    private readonly now: () => number = () => performance.now(),
    private readonly startedAt = now(),
  ) {
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
    this.draw();
  }

  record(event: ProgressEvent): void {
    switch (event.type) {
      case 'planned':
        for (const table of event.tables) this.tables.set(`${table.datasource}\0${table.table}`, { ...table, status: 'pending', rows: 0 });
        this.planned = true;
        break;
      case 'table': {
        const table = this.tables.get(`${event.datasource}\0${event.table}`);
        if (table) table.status = event.status;
        break;
      }
      case 'rows': {
        const table = this.tables.get(`${event.datasource}\0${event.table}`);
        if (table) table.rows += event.rows;
        this.rows = event.totalRows;
        break;
      }
      case 'bytes':
        this.bytes = event.totalBytes;
        break;
    }
  }

  /** Draws the last frame and leaves it on screen. */
  stop(): void {
    clearInterval(this.timer);
    this.draw();
    this.frame.done();
  }

  private draw(): void {
    const state = { tables: [...this.tables.values()], rows: this.rows, bytes: this.bytes, planned: this.planned };
    this.frame(renderProgress(state, this.now() - this.startedAt, this.maxTables));
  }
}
