import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import type { StreamMarks } from '../../src/engine/request/incremental-request.js';
import { INCREMENTAL_SOURCES, seededRandom, type IncrementalSource } from '../helpers/incremental-sources.js';

/** One version of a row: an update that raises its cursor makes a new one and ends the old. */
interface RowVersion {
  readonly id: number;
  readonly ver: number;
  readonly cur: number;
  /** Committed before the run of this step or a later one read. */
  readonly bornAt: number;
  diedAt: number;
}

interface Run {
  readonly step: number;
  readonly from: number | null;
  readonly to: number | null;
  readonly delivered: readonly string[];
}

const STEPS = 200;
const SEED = Number(process.env.INCREMENTAL_MODEL_SEED ?? Date.now() % 1_000_000);
const STREAM = 'model';
const key = (id: number, ver: number) => `${id}:${ver}`;

describe.each(Object.keys(INCREMENTAL_SOURCES))('incremental model (%s)', (engineName) => {
  const engine = createEngine();
  let source: IncrementalSource;

  beforeAll(async () => {
    source = await INCREMENTAL_SOURCES[engineName]();
    await source.exec(
      'CREATE TABLE m_events (id bigint PRIMARY KEY, cur bigint NOT NULL, ver int NOT NULL, note varchar(20)); CREATE INDEX m_events_cur ON m_events (cur)',
    );
  });

  afterAll(async () => {
    await source?.drop();
  });

  it(`${STEPS} random steps (seed ${SEED}): every row version at or below the final mark arrives exactly once, in the run whose range holds it`, async () => {
    const random = seededRandom(SEED);
    const pick = (n: number) => Math.floor(random() * n);
    const versions = new Map<string, RowVersion>();
    const current = new Map<number, RowVersion>();
    const runs: Run[] = [];
    let marks: StreamMarks | undefined;
    let nextId = 1;
    let failed = 0;
    let concurrent = 0;
    const mark = () => (marks ? Number(marks.src.m_events.value) : null);
    const maxCommitted = () => Math.max(0, ...[...current.values()].map((row) => row.cur));
    // New values are at or above every committed one and above the last finished mark: many equal
    // values, never one a finished run has passed.
    const nextValue = () => {
      const base = Math.max(maxCommitted(), mark() ?? 0);
      const step = pick(4);
      return base === (mark() ?? -1) || base === 0 ? base + 1 + step : base + step;
    };
    const born = (id: number, ver: number, cur: number, bornAt: number) => {
      const row: RowVersion = { id, ver, cur, bornAt, diedAt: Infinity };
      versions.set(key(id, ver), row);
      current.set(id, row);
    };

    const job = async (step: number, options: { fail?: boolean; commitDuring?: () => Promise<void> } = {}) => {
      let commit: Promise<void> | undefined;
      const dataRequest = {
        mappedFields: { src: { m_events: ['id', 'ver', 'cur'] } },
        incremental: { stream: STREAM, cursors: { src: { m_events: 'cur' } } },
      };
      try {
        const result = await engine.extract({
          datasources: { src: source.url },
          dataRequest,
          ...(marks ? { marks } : {}),
          checkpoint: () => {
            // Rows are arriving, so the read's snapshot and bound are taken: commit the other transaction now.
            if (options.commitDuring) commit ??= options.commitDuring();
            if (options.fail) throw new Error('made to fail part-way');
          },
        });
        await (commit ?? options.commitDuring?.());
        const document = JSON.parse((result.bytes as Buffer).toString('utf8')) as { src: { m_events: { id: number; ver: number }[] } };
        const range = result.incremental!.tables.src.m_events;
        runs.push({
          step,
          from: range.from === null ? null : Number(range.from),
          to: range.to === null ? null : Number(range.to),
          delivered: document.src.m_events.map((row) => key(Number(row.id), Number(row.ver))),
        });
        marks = Object.keys(result.incremental!.marks).length > 0 ? result.incremental!.marks : marks;
      } catch (error) {
        await (commit ?? options.commitDuring?.());
        if (!options.fail) throw error;
        failed += 1;
      }
    };

    for (let step = 0; step < STEPS; step += 1) {
      const roll = random();
      if (roll < 0.4) {
        const count = 1 + pick(12);
        const rows: string[] = [];
        for (let i = 0; i < count; i += 1) {
          const cur = nextValue();
          rows.push(`(${nextId}, ${cur}, 1, 'i${step}')`);
          born(nextId++, 1, cur, step);
        }
        await source.exec(`INSERT INTO m_events (id, cur, ver, note) VALUES ${rows.join(', ')}`);
      } else if (roll < 0.6 && current.size > 0) {
        const ids = [...current.keys()];
        const row = current.get(ids[pick(ids.length)])!;
        const cur = Math.max(nextValue(), row.cur + 1);
        await source.exec(`UPDATE m_events SET cur = ${cur}, ver = ${row.ver + 1} WHERE id = ${row.id}`);
        row.diedAt = step;
        born(row.id, row.ver + 1, cur, step);
      } else if (roll < 0.9) {
        await job(step + 0.5, { fail: random() < 0.25 });
      } else {
        // A transaction that inserts above every committed value and commits while a run reads.
        const side = await source.side();
        try {
          const rows: string[] = [];
          const base = Math.max(maxCommitted(), mark() ?? 0) + 1;
          for (let i = 0; i < 3; i += 1) rows.push(`(${nextId + i}, ${base + pick(2)}, 1, 'c${step}')`);
          await side.beginWith(`INSERT INTO m_events (id, cur, ver, note) VALUES ${rows.join(', ')}`);
          await job(step + 0.5, { commitDuring: () => side.commit() });
          for (const row of rows) {
            const [id, cur] = row.slice(1).split(', ').map(Number);
            // Committed after the run's snapshot: alive for runs of later steps only.
            born(id, 1, cur, step + 0.75);
          }
          nextId += 3;
          concurrent += 1;
        } finally {
          await side.close();
        }
      }
    }
    await job(STEPS + 0.5);

    const context = `seed ${SEED}, ${runs.length} runs, ${failed} failed, ${concurrent} concurrent`;
    expect(runs.length, context).toBeGreaterThan(20);
    expect(failed, context).toBeGreaterThan(0);
    let lower: number | null = null;
    for (const run of runs) {
      // Each run starts at the previous successful run's mark: a failed one moved nothing.
      expect(run.from, `${context}: run at ${run.step}`).toBe(lower);
      const alive = [...versions.values()].filter((row) => row.bornAt < run.step && row.diedAt > run.step);
      const top = Math.max(...alive.map((row) => row.cur), lower ?? -Infinity);
      expect(run.to, `${context}: the mark of run ${run.step} is the largest value it could see`).toBe(top === -Infinity ? null : top);
      const from = lower;
      const expected = alive.filter((row) => (from === null || row.cur > from) && row.cur <= (run.to ?? -Infinity));
      expect([...run.delivered].sort(), `${context}: rows of run ${run.step}`).toEqual(expected.map((row) => key(row.id, row.ver)).sort());
      lower = run.to;
    }
    const delivered = runs.flatMap((run) => run.delivered);
    expect(new Set(delivered).size, `${context}: no row version twice`).toBe(delivered.length);
    const finalMark = lower ?? -Infinity;
    const owed = [...current.values()].filter((row) => row.cur <= finalMark).map((row) => key(row.id, row.ver));
    expect(
      owed.filter((version) => !delivered.includes(version)),
      context,
    ).toEqual([]);
  });
});
