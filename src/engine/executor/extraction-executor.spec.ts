import { describe, expect, it } from 'vitest';
import { DEFAULT_CEILINGS } from '../request/data-request.js';
import type { ConnectorSession, RowBatch, TableInfo, TableReadRequest } from '../connectors/shared/engine-connector.js';
import { DatasourceType } from '../connectors/datasource-type.js';
import { executePlan } from './extraction-executor.js';
import type { DatasourcePlan, ExtractionPlan } from './extraction-plan.js';
import { JsonDocumentLayout } from '../output/document-layout.js';

const table = (key: string): TableInfo => ({
  schema: 'public',
  name: key,
  key,
  columns: [{ name: 'id', dataType: 'int' }],
  primaryKey: ['id'],
});

interface FakeOptions {
  batches?: number;
  failAfter?: number;
  delayMs?: number;
}

/** A session that yields `{"id":n}` rows and records how many of its kind read at once. */
function fakeSession(gauge: { now: number; max: number }, options: FakeOptions = {}): ConnectorSession & { yielded: number } {
  const session = {
    yielded: 0,
    discover: async () => ({ tables: new Map() }),
    close: async () => undefined,
    async *readRows(_request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch> {
      gauge.now += 1;
      gauge.max = Math.max(gauge.max, gauge.now);
      try {
        for (let i = 0; i < (options.batches ?? 3); i += 1) {
          if (signal.aborted) throw signal.reason;
          if (options.failAfter !== undefined && i >= options.failAfter) throw new Error('connection reset');
          await new Promise((done) => setTimeout(done, options.delayMs ?? 2));
          session.yielded += 1;
          yield { json: Buffer.from(`{"id":${i}}`), rowCount: 1 };
        }
      } finally {
        gauge.now -= 1;
      }
    },
  };
  return session;
}

function plan(datasources: { name: string; tables: string[]; session: ConnectorSession }[], maxParallel = 4): ExtractionPlan {
  return {
    limits: { ...DEFAULT_CEILINGS, maxParallelDatasources: maxParallel },
    datasources: datasources.map((ds): DatasourcePlan => ({
      configName: ds.name,
      session: ds.session,
      datasource: { configName: ds.name, type: DatasourceType.PostgreSQL } as DatasourcePlan['datasource'],
      tables: ds.tables.map((key) => ({ table: table(key), columns: table(key).columns })),
    })),
  };
}

/** The JSON document's layout over `write`: what the engine's default output writes. */
const jsonOver = (write: (chunk: string | Buffer) => Promise<void>) => new JsonDocumentLayout({ write, countedBytes: 0 });

const collect = () => {
  const chunks: string[] = [];
  return { chunks, writer: jsonOver(async (chunk) => void chunks.push(chunk.toString())) };
};

describe('executePlan', () => {
  it('writes {config: {table: [rows]}} in plan order with row counts', async () => {
    const gauge = { now: 0, max: 0 };
    const out = collect();
    const stats = await executePlan(
      plan([
        { name: 'a', tables: ['t1', 't2'], session: fakeSession(gauge, { batches: 2 }) },
        { name: 'b', tables: ['empty'], session: fakeSession(gauge, { batches: 0 }) },
      ]),
      out.writer,
      new AbortController().signal,
    );
    expect(out.chunks.join('')).toBe('{"a":{"t1":[{"id":0},{"id":1}],"t2":[{"id":0},{"id":1}]},"b":{"empty":[]}}');
    expect(stats).toEqual({ rowCount: 4, rowCounts: { a: { t1: 2, t2: 2 }, b: { empty: 0 } }, upperBounds: {} });
  });

  it('hands a batch back to its connector only once the writer is done with it', async () => {
    const events: string[] = [];
    const session: ConnectorSession = {
      discover: async () => ({ tables: new Map() }),
      close: async () => undefined,
      async *readRows() {
        for (let i = 0; i < 3; i += 1) yield { json: Buffer.from(`{"id":${i}}`), rowCount: 1, release: () => events.push(`release ${i}`) };
      },
    };
    const writer = jsonOver(async (chunk) => {
      const text = chunk.toString();
      if (!text.startsWith('{"id"')) return;
      events.push(`write ${text}`);
      await new Promise((done) => setTimeout(done, 5));
      events.push(`written ${text}`);
    });
    await executePlan(plan([{ name: 'a', tables: ['t'], session }]), writer, new AbortController().signal);
    expect(events).toEqual([0, 1, 2].flatMap((i) => [`write {"id":${i}}`, `written {"id":${i}}`, `release ${i}`]));
  });

  it('never reads more datasources at once than maxParallelDatasources', async () => {
    const gauge = { now: 0, max: 0 };
    const datasources = Array.from({ length: 8 }, (_, i) => ({
      name: `ds${i}`,
      tables: ['t'],
      session: fakeSession(gauge, { batches: 5, delayMs: 5 }),
    }));
    const out = collect();
    await executePlan(plan(datasources, 2), out.writer, new AbortController().signal);
    expect(gauge.max).toBe(2);
    expect(JSON.parse(out.chunks.join('')).ds7.t).toHaveLength(5);
  });

  it('reads datasources in parallel up to the bound', async () => {
    const gauge = { now: 0, max: 0 };
    const datasources = Array.from({ length: 4 }, (_, i) => ({
      name: `ds${i}`,
      tables: ['t'],
      session: fakeSession(gauge, { batches: 5, delayMs: 5 }),
    }));
    await executePlan(plan(datasources, 4), collect().writer, new AbortController().signal);
    expect(gauge.max).toBe(4);
  });

  it('fails fast: the first failure cancels the others and is rethrown after they stop', async () => {
    const gauge = { now: 0, max: 0 };
    const slow = fakeSession(gauge, { batches: 1000, delayMs: 5 });
    const failing = fakeSession(gauge, { batches: 10, failAfter: 2 });
    await expect(
      executePlan(
        plan([
          { name: 'a_slow', tables: ['t'], session: slow },
          { name: 'b_failing', tables: ['t'], session: failing },
        ]),
        collect().writer,
        new AbortController().signal,
      ),
    ).rejects.toMatchObject({ code: 'FET-1103', message: expect.stringContaining("datasource 'b_failing' failed while reading 't'") });
    expect(slow.yielded).toBeLessThan(100);
    expect(gauge.now).toBe(0);
  });

  it('stops every reader when the writer fails (e.g. the size limit)', async () => {
    const gauge = { now: 0, max: 0 };
    const writer = jsonOver(async (chunk) => {
      if (chunk.toString().includes('"id":3')) throw new Error('too large');
    });
    await expect(
      executePlan(
        plan([
          { name: 'a', tables: ['t'], session: fakeSession(gauge, { batches: 100 }) },
          { name: 'b', tables: ['t'], session: fakeSession(gauge, { batches: 100 }) },
        ]),
        writer,
        new AbortController().signal,
      ),
    ).rejects.toThrow('too large');
    expect(gauge.now).toBe(0);
  });

  it('stops when the job signal aborts (timeout or shutdown)', async () => {
    const gauge = { now: 0, max: 0 };
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('timed out')), 30);
    await expect(
      executePlan(
        plan([{ name: 'a', tables: ['t'], session: fakeSession(gauge, { batches: 10_000, delayMs: 1 }) }]),
        collect().writer,
        controller.signal,
      ),
    ).rejects.toThrow('timed out');
    expect(gauge.now).toBe(0);
  });
});
