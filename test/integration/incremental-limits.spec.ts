import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import type { ExtractResult } from '../../src/engine/extract-request.js';
import type { StreamMarks } from '../../src/engine/request/incremental-request.js';
import { INCREMENTAL_SOURCES, type IncrementalSource } from '../helpers/incremental-sources.js';

/**
 * The limit docs/incremental.md states: a transaction that commits a cursor value lower than a
 * finished run's mark is never read by a later run; for a time cursor lagSeconds leaves that much
 * room for late commits.
 */
describe.each(Object.keys(INCREMENTAL_SOURCES))('incremental limits (%s)', (engineName) => {
  const engine = createEngine();
  let source: IncrementalSource;

  beforeAll(async () => {
    source = await INCREMENTAL_SOURCES[engineName]();
  });

  afterAll(async () => {
    await source?.drop();
  });

  const scenario = async (table: string, lagSeconds?: number) => {
    await source.exec(`CREATE TABLE ${table} (id int PRIMARY KEY, at ${source.timestampType} NOT NULL)`);
    await source.exec(`INSERT INTO ${table} VALUES (1, '2026-01-01 09:00:00'), (2, '2026-01-01 09:59:00')`);
    let marks: StreamMarks | undefined;
    const run = async () => {
      const result: ExtractResult = await engine.extract({
        datasources: { src: source.url },
        dataRequest: {
          mappedFields: { src: { [table]: ['id'] } },
          incremental: { stream: table, cursors: { src: { [table]: 'at' } }, ...(lagSeconds ? { lagSeconds } : {}) },
        },
        ...(marks ? { marks } : {}),
      });
      marks = result.incremental!.marks;
      const rows = (JSON.parse(result.bytes!.toString('utf8')) as { src: Record<string, { id: number }[]> }).src[table];
      return { ids: rows.map((row) => Number(row.id)), to: result.incremental!.tables.src[table].to };
    };

    // A transaction takes its time at 10:00:05 and commits only after a run has read past it.
    const late = await source.side();
    try {
      await late.beginWith(`INSERT INTO ${table} VALUES (3, '2026-01-01 10:00:05')`);
      await source.exec(`INSERT INTO ${table} VALUES (4, '2026-01-01 10:00:10')`);
      const first = await run();
      await late.commit();
      await source.exec(`INSERT INTO ${table} VALUES (5, '2026-01-01 10:01:00')`);
      const second = await run();
      return { first, second };
    } finally {
      await late.close();
    }
  };

  it('without a lag, a value committed below a finished run’s mark is never read', async () => {
    const { first, second } = await scenario('no_lag');
    expect(first).toEqual({ ids: [1, 2, 4], to: source.renderedTimestamp('2026-01-01T10:00:10') });
    expect(second).toEqual({ ids: [5], to: source.renderedTimestamp('2026-01-01T10:01:00') });
  });

  it('lagSeconds keeps the mark that far behind the newest value, so the late commit is read by the next run', async () => {
    const { first, second } = await scenario('with_lag', 30);
    expect(first).toEqual({ ids: [1, 2], to: source.renderedTimestamp('2026-01-01T09:59:40') });
    expect(second).toEqual({ ids: [3, 4], to: source.renderedTimestamp('2026-01-01T10:00:30') });
  });
});
