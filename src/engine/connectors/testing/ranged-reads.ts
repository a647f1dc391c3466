import { expect } from 'vitest';
import type { CursorKind, CursorRange } from '../../incremental/cursor-range.js';
import type { FilterCondition } from '../../request/data-request.js';
import type { ColumnInfo, ConnectorSession, TableInfo } from '../shared/engine-connector.js';

export interface RangedRead {
  /** The upper bound the read told; undefined if it told none. */
  readonly bound: string | null | undefined;
  /** Each row's JSON text. */
  readonly rows: string[];
}

export interface RangedReader {
  columnOf(name: string): ColumnInfo;
  /** The range over `name` as the connector classes its kind; a column that is no cursor throws. */
  rangeOf(name: string, extra?: Partial<CursorRange>): CursorRange;
  /**
   * One ranged read of the key column and `name`: every batch must come after the bound was told,
   * and `onBound` runs when it is (e.g. to commit a row from elsewhere in that moment).
   */
  ranged(name: string, extra?: Partial<CursorRange>, filters?: Record<string, FilterCondition>, onBound?: () => void): Promise<RangedRead>;
}

/**
 * Ranged reads of a table an incremental suite opens in its beforeAll: `source` gives the session
 * and the table once they exist; `key` is the column every read returns first.
 */
export function rangedReader(
  connector: { cursorKind(column: ColumnInfo): CursorKind | null },
  source: () => { session: ConnectorSession; table: TableInfo },
  key: string,
): RangedReader {
  const columnOf = (name: string) => source().table.columns.find((c) => c.name === name)!;
  const rangeOf = (name: string, extra: Partial<CursorRange> = {}): CursorRange => {
    const column = columnOf(name);
    const kind = connector.cursorKind(column);
    if (kind === null) throw new Error(`${name} is no cursor`);
    return { column, kind, ...extra };
  };
  const ranged = async (
    name: string,
    extra: Partial<CursorRange> = {},
    filters?: Record<string, FilterCondition>,
    onBound?: () => void,
  ) => {
    const { session, table } = source();
    let bound: string | null | undefined;
    const rows: string[] = [];
    const request = {
      table,
      columns: name === key ? [columnOf(key)] : [columnOf(key), columnOf(name)],
      ...(filters ? { filters } : {}),
      range: rangeOf(name, extra),
      onRangeBound: (upper: string | null) => {
        bound = upper;
        onBound?.();
      },
    };
    for await (const batch of session.readRows(request, new AbortController().signal)) {
      expect(bound).not.toBeUndefined();
      rows.push(...(batch.json.toString('utf8').match(/\{[^}]*\}/g) ?? []));
    }
    return { bound, rows };
  };
  return { columnOf, rangeOf, ranged };
}
