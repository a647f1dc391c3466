import { describe, expect, it } from 'vitest';
import { DEFAULT_CEILINGS } from '../request/data-request.js';
import type { ConnectorSession, RowBatch, TableInfo, TableReadRequest } from '../connectors/shared/engine-connector.js';
import { DatasourceType } from '../connectors/datasource-type.js';
import { executePlan } from './extraction-executor.js';
import type { ExtractionPlan } from './extraction-plan.js';
import { JsonDocumentLayout } from '../output/document-layout.js';
import { FetCode } from '../errors/fet-code.js';

const events: TableInfo = {
  schema: 'public',
  name: 'events',
  key: 'events',
  columns: [{ name: 'seq', dataType: 'bigint' }],
  primaryKey: [],
};
const ranged: TableReadRequest = {
  table: events,
  columns: events.columns,
  range: { column: events.columns[0], kind: 'integer', after: '5' },
};

/** A session whose reads report `bound` (or not, when undefined) and then yield one row per batch. */
function session(bound: string | null | undefined, batches = 2): ConnectorSession & { seen: TableReadRequest[] } {
  const seen: TableReadRequest[] = [];
  return {
    seen,
    discover: async () => ({ tables: new Map() }),
    close: async () => undefined,
    async *readRows(request: TableReadRequest): AsyncIterable<RowBatch> {
      seen.push(request);
      if (bound !== undefined) request.onRangeBound?.(bound);
      for (let i = 0; i < (bound === null ? 0 : batches); i += 1) yield { json: Buffer.from(`{"seq":${6 + i}}`), rowCount: 1 };
    },
  };
}

const planOf = (reader: ConnectorSession, tables: TableReadRequest[] = [ranged]): ExtractionPlan => ({
  limits: DEFAULT_CEILINGS,
  datasources: [{ configName: 'pg', session: reader, datasource: { configName: 'pg', type: DatasourceType.PostgreSQL } as never, tables }],
});

const layout = () => new JsonDocumentLayout({ write: async () => undefined, countedBytes: 0 });

describe('executePlan with incremental ranges', () => {
  it('asks every ranged read for its bound and reports it per table; full tables have none', async () => {
    const full: TableReadRequest = { table: { ...events, key: 'full', name: 'full' }, columns: events.columns };
    const reader = session('7');
    const stats = await executePlan(planOf(reader, [ranged, full]), layout(), new AbortController().signal);
    expect(stats.upperBounds).toEqual({ pg: { events: '7' } });
    expect(stats.rowCounts).toEqual({ pg: { events: 2, full: 2 } });
    expect(reader.seen[0].onRangeBound).toBeTypeOf('function');
    expect(reader.seen[1].onRangeBound).toBeUndefined();
  });

  it('a null bound (nothing new) is reported as null', async () => {
    const stats = await executePlan(planOf(session(null)), layout(), new AbortController().signal);
    expect(stats.upperBounds).toEqual({ pg: { events: null } });
  });

  it('fails rather than trust rows of a ranged read that never said its bound', async () => {
    await expect(executePlan(planOf(session(undefined)), layout(), new AbortController().signal)).rejects.toMatchObject({
      code: FetCode.Internal,
      message: expect.stringMatching(/without bounding its incremental range/),
    });
    await expect(executePlan(planOf(session(undefined, 0)), layout(), new AbortController().signal)).rejects.toMatchObject({
      code: FetCode.Internal,
    });
  });
});
