import type { Connection, Query } from 'mysql2';
import type { ColumnInfo, RowBatch, RowFrame } from '../shared/engine-connector.js';
import type { ReadBudget } from '../shared/read-budget.js';
import { rowFrameBytes, type RowFrameBytes } from '../shared/row-frame.js';
import { planRawColumns } from './mysql-raw-columns.js';
import { NO_ROWS, RawRowRenderer, type RenderedRows } from './mysql-raw-row-renderer.js';
import { interceptRawRows, type RowPacket, type WireField } from './mysql-raw-rows.js';
import { ParsedRowCollector, type RowCollector, type RowIntake } from './mysql-row-stream.js';
import { createBatchRenderer, kindsForResult, type RawRow } from './mysql-value-encoders.js';

export type { RenderedRows } from './mysql-raw-row-renderer.js';

/**
 * Rows of a read, rendered to JSON as they arrive: from their packets' bytes (RawRowRenderer),
 * or, when mysql2 does not look as mysql-raw-rows.ts expects, from mysql2's parsed rows through
 * the value encoders. Both give the same bytes; the first never makes a JS value of a row.
 *
 * The character set needs no fallback of its own: the connection is utf8mb4, so the server
 * converts every text column to it (the fields say so) and values the renderer copies are UTF-8;
 * a field in any other character set is decoded by mysql2 value by value (wire class `mysql2`).
 */
export class RenderedRowCollector implements RowCollector<RenderedRows> {
  private renderer: RawRowRenderer | undefined;
  /** Set when the packets cannot be read raw: mysql2's rows, rendered when taken. */
  private parsed: ParsedRowCollector | undefined;
  private renderParsed: ((rows: readonly RawRow[]) => RowBatch[]) | undefined;
  private fields: readonly WireField[] = [];
  /** Set by drop(): the read was stopped, what still arrives is skipped unread. */
  private dropped = false;
  /** The frame as the raw renderer writes it, encoded once for the read. */
  private readonly frameBytes: RowFrameBytes;

  constructor(
    private readonly columns: readonly ColumnInfo[],
    private readonly budget: ReadBudget,
    private readonly table: string,
    private readonly frame?: RowFrame,
  ) {
    this.frameBytes = rowFrameBytes(frame);
  }

  /** Whether the rows are rendered from their packets (false: mysql2's parsed rows). */
  get readsRaw(): boolean {
    return this.parsed === undefined;
  }

  get isFull(): boolean {
    return this.parsed?.isFull ?? this.renderer?.isFull ?? false;
  }

  listen(query: Query, connection: Connection, intake: RowIntake): void {
    const source = interceptRawRows(
      connection,
      query,
      (packet) => this.onPacket(packet, intake),
      (error) => intake.failed(error),
    );
    query.on('fields', (fields: readonly WireField[]) => {
      this.fields = fields;
      if (source !== undefined)
        this.renderer = new RawRowRenderer(planRawColumns(this.columns, fields), source, this.budget, this.table, this.frameBytes);
    });
    if (source === undefined) {
      this.parsed = new ParsedRowCollector(this.budget, this.table);
      this.parsed.listen(query, connection, intake);
    }
  }

  take(): RenderedRows {
    if (this.parsed === undefined) return this.renderer?.take() ?? NO_ROWS;
    const rows = this.parsed.take();
    if (rows.length === 0) return NO_ROWS;
    this.renderParsed ??= createBatchRenderer(this.columns, kindsForResult(this.columns, this.fields), this.frame);
    return { length: rows.length, chunks: this.renderParsed(rows) };
  }

  drop(): void {
    this.dropped = true;
    this.parsed?.drop();
    this.renderer?.drop();
  }

  private onPacket(packet: RowPacket, intake: RowIntake): void {
    if (this.dropped) return;
    let full: boolean;
    try {
      if (this.renderer === undefined) throw new Error('a row before the column definitions');
      full = this.renderer.render(packet);
    } catch (error) {
      intake.failed(error);
      return;
    }
    intake.collected(full);
  }
}
