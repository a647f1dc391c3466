import type { ProgressEvent, TableStatus } from '../engine/extract-request.js';
import { ProgressTally } from '../engine/output/progress-tally.js';
import { TimerScheduler } from '../common/clock/scheduler.js';

const MiB = 1024 * 1024;
const REDRAW_MS = 100;

/** What the display knows of an extraction so far. */
export interface ProgressState {
  readonly tables: ReadonlyArray<{
    readonly datasource: string;
    readonly table: string;
    readonly status: TableStatus;
    readonly rows: number;
  }>;
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
  private readonly tally = new ProgressTally();
  private readonly stopRedraws: () => void;

  constructor(
    private readonly frame: FrameWriter,
    private readonly maxTables: number,
    private readonly now: () => number = () => performance.now(),
    private readonly startedAt = now(),
  ) {
    this.stopRedraws = new TimerScheduler().repeat(REDRAW_MS, () => this.draw(), { unref: true });
    this.draw();
  }

  record(event: ProgressEvent): void {
    this.tally.record(event);
  }

  /** Draws the last frame and leaves it on screen. */
  stop(): void {
    this.stopRedraws();
    this.draw();
    this.frame.done();
  }

  private draw(): void {
    const { tables, rows, bytes, planned } = this.tally;
    const listed = [...tables].flatMap(([datasource, byTable]) =>
      [...byTable].map(([table, { status, rows: tableRows }]) => ({ datasource, table, status, rows: tableRows })),
    );
    this.frame(renderProgress({ tables: listed, rows, bytes, planned }, this.now() - this.startedAt, this.maxTables));
  }
}
