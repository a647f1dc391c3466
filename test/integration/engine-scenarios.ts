import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ConnectorSession,
  EngineConnector,
  ResolvedDatasource,
  RowBatch,
  TableInfo,
} from '../../src/engine/connectors/shared/engine-connector.js';
import type { FilterCondition } from '../../src/engine/request/data-request.js';

/**
 * One dataset and one set of scenarios every engine connector must pass. MariaDB and PostgreSQL
 * run them against their real servers; SQL Server, Oracle and MongoDB run them when their
 * TEST_*_URL variable points at a server, and say so plainly when it does not.
 */
export interface ScenarioRow {
  readonly id: number;
  readonly name: string;
  /** decimal(12,2) as exact text */
  readonly amount: string;
  readonly qty: number;
  readonly active: boolean;
  /** date as YYYY-MM-DD */
  readonly day: string;
  /** timestamp (UTC) with milliseconds, as YYYY-MM-DDTHH:MM:SS.mmm */
  readonly at: string;
  readonly note: string | null;
}

/** Inserted in this order (not the key order): reads must come back ordered by id. */
export const SCENARIO_ROWS: readonly ScenarioRow[] = [
  {
    id: 3,
    name: 'gamma 50%_off',
    amount: '1234567890.12',
    qty: 30,
    active: true,
    day: '2026-03-01',
    at: '2026-03-01T12:00:00.250',
    note: null,
  },
  {
    id: 1,
    name: 'alpha',
    amount: '10.50',
    qty: 10,
    active: true,
    day: '2026-01-15',
    at: '2026-01-15T08:30:00.000',
    note: 'first "quoted" \\ line\nnext ção 😀',
  },
  { id: 2, name: 'beta', amount: '0.00', qty: 0, active: false, day: '2026-02-28', at: '2026-02-28T23:59:59.999', note: 'second' },
  { id: 5, name: 'epsilon', amount: '-7.25', qty: 50, active: false, day: '2026-05-31', at: '2026-05-31T00:00:00.000', note: null },
  { id: 4, name: 'delta', amount: '99.99', qty: 40, active: true, day: '2026-04-30', at: '2026-04-30T18:45:10.500', note: 'fourth' },
];

/** Filter cases on the dataset: the ids each must return, in key order, on every engine. */
export const SCENARIO_FILTERS: readonly {
  readonly name: string;
  readonly filters: Record<string, FilterCondition>;
  readonly ids: number[];
}[] = [
  { name: 'eq one value', filters: { name: { eq: ['beta'] } }, ids: [2] },
  { name: 'eq several values (IN)', filters: { qty: { eq: [10, 40] } }, ids: [1, 4] },
  { name: 'ne', filters: { qty: { ne: [0] } }, ids: [1, 3, 4, 5] },
  { name: 'gt on a decimal', filters: { amount: { gt: ['10.50'] } }, ids: [3, 4] },
  { name: 'gte / lt together', filters: { qty: { gte: [10], lt: [40] } }, ids: [1, 3] },
  { name: 'lte', filters: { amount: { lte: [0] } }, ids: [2, 5] },
  { name: 'between inclusive', filters: { qty: { between: [10, 40] } }, ids: [1, 3, 4] },
  { name: 'between dates given as strings', filters: { day: { between: ['2026-02-28', '2026-04-30'] } }, ids: [2, 3, 4] },
  { name: 'in', filters: { name: { in: ['alpha', 'delta', 'nobody'] } }, ids: [1, 4] },
  { name: 'nin', filters: { name: { nin: ['alpha', 'delta'] } }, ids: [2, 3, 5] },
  { name: 'like with %', filters: { name: { like: ['%ta'] } }, ids: [2, 4] },
  { name: 'like with a literal % inside', filters: { name: { like: ['gamma 50%'] } }, ids: [3] },
  { name: 'eq [null] is IS NULL', filters: { note: { eq: [null] } }, ids: [3, 5] },
  { name: 'ne [null] is IS NOT NULL', filters: { note: { ne: [null] } }, ids: [1, 2, 4] },
  { name: 'two fields ANDed', filters: { active: { eq: [true] }, qty: { gt: [10] } }, ids: [3, 4] },
];

export interface EngineHarness {
  readonly connector: EngineConnector;
  /** Points at a database holding the scenario table with SCENARIO_ROWS. */
  readonly datasource: ResolvedDatasource;
  /** Namespaces to discover (e.g. ['dbo']); empty for the engine default. */
  readonly schemas: readonly string[];
  /** The scenario table's result key, e.g. `scenario_items` or `SCENARIO_ITEMS`. */
  readonly tableKey: string;
  /** The engine's name for a scenario column (`id` → `ID` on Oracle). */
  column(name: keyof ScenarioRow): string;
  /** The row as this engine renders it (JSON values, keys as `column()` names), all columns in table order. */
  expectedRow(row: ScenarioRow): Record<string, unknown>;
}

const readAll = async (batches: AsyncIterable<RowBatch>): Promise<Record<string, unknown>[]> => {
  const parts: string[] = [];
  for await (const batch of batches) parts.push(batch.json.toString('utf8'));
  return JSON.parse(`[${parts.join(',')}]`) as Record<string, unknown>[];
};

/**
 * Registers the shared scenarios. `prepare` builds the harness (creating the fixture); when it is
 * undefined the suite is skipped with `skipReason` printed, so a skipped engine is visible.
 */
export function describeEngineScenarios(
  engine: string,
  prepare: (() => Promise<{ harness: EngineHarness; cleanup: () => Promise<void> }>) | undefined,
  skipReason: string,
): void {
  if (!prepare) {
    describe.skip(`${engine} shared engine scenarios — SKIPPED: ${skipReason}`, () => {
      it.skip('needs a server', () => undefined);
    });
    process.stdout.write(`\n[engine-scenarios] ${engine}: SKIPPED — ${skipReason}\n`);
    return;
  }

  describe(`${engine} shared engine scenarios`, () => {
    let harness: EngineHarness;
    let cleanup: () => Promise<void>;
    let session: ConnectorSession;
    let table: TableInfo;

    beforeAll(async () => {
      ({ harness, cleanup } = await prepare());
      session = await harness.connector.open(harness.datasource, { connectTimeoutMs: 15_000 });
      const found = (await session.discover(harness.schemas, new AbortController().signal)).tables.get(harness.tableKey);
      if (!found) throw new Error(`${harness.tableKey} was not discovered`);
      table = found;
    }, 120_000);

    afterAll(async () => {
      await session?.close();
      await cleanup?.();
    });

    const columns = (...names: (keyof ScenarioRow)[]) =>
      names.map((name) => table.columns.find((column) => column.name === harness.column(name))!);

    it('discovers the table with its columns in order and its primary key', () => {
      const names: (keyof ScenarioRow)[] = ['id', 'name', 'amount', 'qty', 'active', 'day', 'at', 'note'];
      expect(table.columns.map((column) => column.name)).toEqual(names.map((name) => harness.column(name)));
      expect(table.primaryKey).toEqual([harness.column('id')]);
    });

    it('reads every row in key order with every value mapped as docs/value-mapping.md says', async () => {
      const rows = await readAll(session.readRows({ table, columns: table.columns }, new AbortController().signal));
      const expected = [...SCENARIO_ROWS].sort((a, b) => a.id - b.id).map((row) => harness.expectedRow(row));
      expect(rows).toEqual(expected);
    });

    it('projects the requested columns in the requested order', async () => {
      const rows = await readAll(session.readRows({ table, columns: columns('note', 'id') }, new AbortController().signal));
      expect(rows.map((row) => Object.keys(row))).toEqual(rows.map(() => [harness.column('note'), harness.column('id')]));
      expect(rows.map((row) => row[harness.column('id')])).toEqual([1, 2, 3, 4, 5]);
    });

    for (const scenario of SCENARIO_FILTERS) {
      // oxlint-disable-next-line no-loop-func -- each case reads the session beforeAll opens, after the loop has run
      it(`filters: ${scenario.name}`, async () => {
        const filters = Object.fromEntries(
          Object.entries(scenario.filters).map(([field, condition]) => [harness.column(field as keyof ScenarioRow), condition]),
        );
        const rows = await readAll(session.readRows({ table, columns: columns('id'), filters }, new AbortController().signal));
        expect(rows.map((row) => row[harness.column('id')])).toEqual(scenario.ids);
      });
    }

    it('stops when its signal aborts', async () => {
      const controller = new AbortController();
      controller.abort(new Error('stop'));
      const reading = readAll(session.readRows({ table, columns: table.columns }, controller.signal));
      await expect(reading).rejects.toThrow('stop');
    });
  });
}
