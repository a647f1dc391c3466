import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CursorRange } from '../../src/engine/incremental/cursor-range.js';
import type { ConnectorSession, TableInfo, TableReadRequest } from '../../src/engine/connectors/shared/engine-connector.js';
import type { ReadBudget } from '../../src/engine/connectors/shared/read-budget.js';
import { boundSelect, rangeRequest } from '../../src/engine/connectors/mysql/mysql-range-read.js';
import { buildSelect, renderSql } from '../../src/engine/connectors/mysql/mysql-sql.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { resolvedMySqlDatasource, useTempMariaDatabase, withMariaAdmin } from '../helpers/mariadb-database.js';

/** One row per batch: a read is still running when the test acts between its batches. */
const ROW_BY_ROW: ReadBudget = { batchBytes: 1 << 20, batchRows: 1, remainingBytes: () => Number.MAX_SAFE_INTEGER };

type Bounds = Pick<CursorRange, 'after' | 'from' | 'lagSeconds'>;

interface RangeResult {
  /** What onRangeBound was told; undefined when it was not called. */
  readonly upper: string | null | undefined;
  readonly boundCalls: number;
  /** The result's JSON text, rows joined with commas. */
  readonly json: string;
  readonly ids: number[];
}

describe('MySqlConnector incremental reads against MariaDB', () => {
  const connector = new MySqlConnector();
  const db = useTempMariaDatabase('my_incremental');
  let session: ConnectorSession;
  /** The lock the gated view's rows wait for (GET_LOCK names are server-wide: unique to the run). */
  let gateLock: string;

  beforeAll(async () => {
    gateLock = `${db().name}_gate`;
    await db().query(`
      CREATE TABLE events (id INT PRIMARY KEY, seq INT, note VARCHAR(10), KEY seq_idx (seq)) ENGINE=InnoDB;
      INSERT INTO events VALUES (1, 10, 'keep'), (2, 20, 'drop'), (3, 20, 'keep'), (4, 30, 'keep'), (5, 30, 'keep'), (6, 30, 'drop'), (7, NULL, 'keep');
      CREATE TABLE empty_cursor (id INT PRIMARY KEY, seq INT);
      INSERT INTO empty_cursor VALUES (1, NULL);
      CREATE TABLE big_numbers (id INT PRIMARY KEY, bu BIGINT UNSIGNED, amount DECIMAL(38,10));
      INSERT INTO big_numbers VALUES
        (1, 18446744073709551613, '-1234567890123456789012345678.0123456789'),
        (2, 18446744073709551614, '1234567890123456789012345678.0123456789'),
        (3, 18446744073709551615, '1234567890123456789012345678.0123456790');
      CREATE TABLE times (id INT PRIMARY KEY, dt DATETIME(6), ts TIMESTAMP(6) NULL DEFAULT NULL, d DATE);
      INSERT INTO times VALUES
        (1, '2024-01-15 10:20:00.123456', '2024-01-15 10:20:00.123456', '2024-01-13'),
        (2, '2024-01-15 10:20:30.123455', '2024-01-15 10:20:30.123455', '2024-01-14'),
        (3, '2024-01-15 10:20:30.123456', '2024-01-15 10:20:30.123456', '2024-01-15'),
        (4, '2024-01-15 10:20:00.123457', '2024-01-15 10:20:00.123457', '2024-01-15');
      CREATE TABLE probe (id INT PRIMARY KEY);
      CREATE TABLE indexed (id INT PRIMARY KEY, c BIGINT, pad VARCHAR(40), KEY c_idx (c)) ENGINE=InnoDB;
      INSERT INTO indexed SELECT seq, seq * 10, MD5(seq) FROM seq_1_to_5000;
      ANALYZE TABLE indexed;
      CREATE TABLE growing (id INT PRIMARY KEY, c INT) ENGINE=InnoDB;
      INSERT INTO growing VALUES (1, 1), (2, 2), (3, 3), (4, 4);
      CREATE TABLE gated_rows (id INT PRIMARY KEY, c INT) ENGINE=InnoDB;
      INSERT INTO gated_rows VALUES (1, 10), (2, 20), (3, 30);
    `);
    // Each value of the view waits until the test lets the lock go: a window inside the session's
    // statement, in which another connection commits.
    await db().query(`CREATE FUNCTION gate(x INT) RETURNS INT NOT DETERMINISTIC NO SQL
      BEGIN DO GET_LOCK('${gateLock}', 60); DO RELEASE_LOCK('${gateLock}'); RETURN x; END`);
    await db().query('CREATE VIEW gated AS SELECT id, gate(c) AS c FROM gated_rows');
    await db().query(`CREATE FUNCTION boom(x INT) RETURNS INT NOT DETERMINISTIC NO SQL
      BEGIN IF x = 3 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'boom at 3'; END IF; RETURN x; END`);
    await db().query('CREATE VIEW failing AS SELECT id, c, boom(id) AS b FROM growing');
    session = await connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
  });

  afterAll(async () => {
    await session?.close();
  });

  const tableInfo = async (key: string): Promise<TableInfo> => {
    const info = (await session.discover(null, new AbortController().signal)).tables.get(key);
    if (info === undefined) throw new Error(`table ${key} not discovered`);
    return info;
  };

  /** The ranged read request of `key` by `cursor`, its kind as the connector says. */
  const rangedRequest = async (key: string, cursor: string, bounds: Bounds = {}, extra: Partial<TableReadRequest> = {}) => {
    const table = await tableInfo(key);
    const column = table.columns.find((c) => c.name === cursor);
    if (column === undefined) throw new Error(`no column ${cursor}`);
    const kind = connector.cursorKind(column);
    if (kind === null) throw new Error(`${cursor} is no cursor`);
    return { table, columns: table.columns, range: { column, kind, ...bounds }, ...extra } satisfies TableReadRequest;
  };

  /** Reads a range to its end; fails if a batch comes before the bound was told. */
  const readRange = async (
    key: string,
    cursor: string,
    bounds: Bounds = {},
    extra: Partial<TableReadRequest> = {},
    signal = new AbortController().signal,
  ): Promise<RangeResult> => {
    let upper: string | null | undefined;
    let boundCalls = 0;
    const request = await rangedRequest(key, cursor, bounds, {
      ...extra,
      onRangeBound: (told) => {
        upper = told;
        boundCalls++;
      },
    });
    const parts: string[] = [];
    for await (const batch of session.readRows(request, signal)) {
      if (boundCalls === 0) throw new Error('a batch before the bound');
      parts.push(batch.json.toString('utf8'));
    }
    const json = parts.join(',');
    const ids = (JSON.parse(`[${json}]`) as { id: number }[]).map((r) => r.id).sort((a, b) => a - b);
    return { upper, boundCalls, json, ids };
  };

  /** Ids of a plain (not ranged) read on the session. */
  const plainIds = async (key: string): Promise<number[]> => {
    const table = await tableInfo(key);
    const ids: number[] = [];
    for await (const batch of session.readRows({ table, columns: table.columns }, new AbortController().signal))
      ids.push(...(JSON.parse(`[${batch.json.toString('utf8')}]`) as { id: number }[]).map((r) => r.id));
    return ids.sort((a, b) => a - b);
  };

  /**
   * The session holds no snapshot: a row another connection commits now is in its next plain
   * read (inside a REPEATABLE READ snapshot it would not be), and a ranged read can start again
   * (SET TRANSACTION fails inside a transaction).
   */
  const expectOutsideTransaction = async () => {
    const [{ next }] = await db().query<{ next: number | string }>('SELECT COALESCE(MAX(id), 0) + 1 AS next FROM probe');
    await db().query('INSERT INTO probe VALUES (?)', [Number(next)]);
    expect(await plainIds('probe')).toContain(Number(next));
    await expect(readRange('events', 'seq', { after: '30' })).resolves.toMatchObject({ upper: null, ids: [] });
  };

  /** Connections of the test database waiting in GET_LOCK. */
  const waitingOnGate = async (): Promise<number> => {
    const [{ n }] = await db().query<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND STATE = 'User lock'",
    );
    return Number(n);
  };

  /** Polls a condition; a deadline only so a broken test fails instead of hanging. */
  const waitFor = async (check: () => Promise<boolean>): Promise<void> => {
    for (let tries = 0; !(await check()); tries++) {
      if (tries > 400) throw new Error('condition never met');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  /**
   * Runs `fn` while a connection of its own holds the gate's lock, and lets it go after. What `fn`
   * starts is awaited by the caller once the gate is open again.
   */
  const withGateClosed = (fn: () => Promise<void>): Promise<void> =>
    withMariaAdmin(async (admin) => {
      await admin.query('SELECT GET_LOCK(?, 0)', [gateLock]);
      try {
        await fn();
      } finally {
        await admin.query('SELECT RELEASE_LOCK(?)', [gateLock]);
      }
    });

  describe('the bound', () => {
    it('is the maximum; every row up to it is read, ties at it included, a NULL cursor never', async () => {
      const result = await readRange('events', 'seq');
      expect(result).toMatchObject({ upper: '30', boundCalls: 1, ids: [1, 2, 3, 4, 5, 6] });
      // The mark it gives excludes every row of the tie: none is read twice, none is skipped.
      expect(await readRange('events', 'seq', { after: result.upper! })).toMatchObject({ upper: null, boundCalls: 1, ids: [] });
    });

    it('reads above a mark only, and from an initial value inclusively', async () => {
      expect(await readRange('events', 'seq', { after: '10' })).toMatchObject({ upper: '30', ids: [2, 3, 4, 5, 6] });
      expect(await readRange('events', 'seq', { after: '20' })).toMatchObject({ upper: '30', ids: [4, 5, 6] });
      expect(await readRange('events', 'seq', { from: '20' })).toMatchObject({ upper: '30', ids: [2, 3, 4, 5, 6] });
      expect(await readRange('events', 'seq', { from: '30' })).toMatchObject({ upper: '30', ids: [4, 5, 6] });
      expect(await readRange('events', 'seq', { from: '31' })).toMatchObject({ upper: null, ids: [] });
    });

    it('is null, and nothing is read, when no row has a cursor', async () => {
      expect(await readRange('empty_cursor', 'seq')).toMatchObject({ upper: null, boundCalls: 1, ids: [] });
      expect(await readRange('probe', 'id', { from: '1000000' })).toMatchObject({ upper: null, boundCalls: 1, ids: [] });
    });

    it("leaves the user's filters on other columns in force, and the bound over the whole table", async () => {
      const filters = { note: { eq: ['keep'] } };
      expect(await readRange('events', 'seq', { after: '10' }, { filters })).toMatchObject({ upper: '30', ids: [3, 4, 5] });
      // The maximum's rows are all filtered out: the bound still covers them, they are not read later.
      const onlyDropped = { note: { eq: ['drop'] }, id: { lt: [6] } };
      expect(await readRange('events', 'seq', {}, { filters: onlyDropped })).toMatchObject({ upper: '30', ids: [2] });
    });
  });

  describe('exact cursor types', () => {
    it('BIGINT UNSIGNED near 2^64: the bound and the mark compare exactly, not as doubles', async () => {
      const full = await readRange('big_numbers', 'bu');
      expect(full.upper).toBe('18446744073709551615');
      expect(full.json).toContain('"bu":18446744073709551614');
      expect(await readRange('big_numbers', 'bu', { after: '18446744073709551614' })).toMatchObject({
        upper: '18446744073709551615',
        ids: [3],
      });
      expect(await readRange('big_numbers', 'bu', { from: '18446744073709551614' })).toMatchObject({ ids: [2, 3] });
      expect(await readRange('big_numbers', 'bu', { after: full.upper! })).toMatchObject({ upper: null, ids: [] });
    });

    it('DECIMAL(38,10): the bound is the exact text the rows show', async () => {
      const full = await readRange('big_numbers', 'amount');
      expect(full.upper).toBe('1234567890123456789012345678.0123456790');
      expect(full.json).toContain('"amount":"1234567890123456789012345678.0123456789"');
      expect(await readRange('big_numbers', 'amount', { after: '1234567890123456789012345678.0123456789' })).toMatchObject({
        upper: '1234567890123456789012345678.0123456790',
        ids: [3],
      });
      expect(await readRange('big_numbers', 'amount', { after: full.upper! })).toMatchObject({ upper: null, ids: [] });
    });

    it('DATETIME(6): microseconds, as the rows render them', async () => {
      const full = await readRange('times', 'dt');
      expect(full.upper).toBe('2024-01-15T10:20:30.123456');
      expect(full.json).toContain('"dt":"2024-01-15T10:20:30.123455"');
      expect(await readRange('times', 'dt', { after: '2024-01-15T10:20:30.123455' })).toMatchObject({ ids: [3] });
      expect(await readRange('times', 'dt', { after: '2024-01-15T10:20:00.123456' })).toMatchObject({ ids: [2, 3, 4] });
      expect(await readRange('times', 'dt', { after: full.upper! })).toMatchObject({ upper: null, ids: [] });
    });

    it('TIMESTAMP(6): an instant in UTC with Z; the bound fed back as the mark excludes exactly what it covered', async () => {
      const full = await readRange('times', 'ts');
      expect(full.upper).toBe('2024-01-15T10:20:30.123456Z');
      expect(full.json).toContain('"ts":"2024-01-15T10:20:30.123455Z"');
      expect(await readRange('times', 'ts', { after: '2024-01-15T10:20:30.123455Z' })).toMatchObject({ ids: [3] });
      // An initial value with an offset means the same instant.
      expect(await readRange('times', 'ts', { from: '2024-01-15T12:20:30.123455+02:00' })).toMatchObject({ ids: [2, 3] });
      expect(await readRange('times', 'ts', { after: full.upper! })).toMatchObject({ upper: null, ids: [] });
    });
  });

  describe('lag', () => {
    it('DATETIME: the bound is the maximum minus the lag, rows at it included', async () => {
      const lagged = await readRange('times', 'dt', { lagSeconds: 30 });
      expect(lagged).toMatchObject({ upper: '2024-01-15T10:20:00.123456', ids: [1] });
      expect(await readRange('times', 'dt', { after: lagged.upper!, lagSeconds: 29 })).toMatchObject({
        upper: '2024-01-15T10:20:01.123456',
        ids: [4],
      });
      // The lagged maximum is not above the mark: nothing new yet.
      expect(await readRange('times', 'dt', { after: '2024-01-15T10:20:00.123456', lagSeconds: 30 })).toMatchObject({
        upper: null,
        ids: [],
      });
    });

    it('TIMESTAMP: the lagged bound is still rendered as the instant it is, with Z', async () => {
      const lagged = await readRange('times', 'ts', { lagSeconds: 30 });
      expect(lagged).toMatchObject({ upper: '2024-01-15T10:20:00.123456Z', ids: [1] });
      expect(await readRange('times', 'ts', { after: lagged.upper!, lagSeconds: 1 })).toMatchObject({
        upper: '2024-01-15T10:20:29.123456Z',
        ids: [4],
      });
    });

    it('DATE: the lag counts in whole days, rounded up', async () => {
      expect(await readRange('times', 'd')).toMatchObject({ upper: '2024-01-15', ids: [1, 2, 3, 4] });
      expect(await readRange('times', 'd', { lagSeconds: 1 })).toMatchObject({ upper: '2024-01-14', ids: [1, 2] });
      expect(await readRange('times', 'd', { lagSeconds: 86_400 })).toMatchObject({ upper: '2024-01-14', ids: [1, 2] });
      expect(await readRange('times', 'd', { lagSeconds: 86_401 })).toMatchObject({ upper: '2024-01-13', ids: [1] });
      expect(await readRange('times', 'd', { after: '2024-01-13', lagSeconds: 86_401 })).toMatchObject({ upper: null, ids: [] });
    });
  });

  describe('one snapshot', () => {
    it('a row committed during the read is not in it; above the bound, the next read gets it', async () => {
      let upper: string | null | undefined;
      const request = await rangedRequest('growing', 'c', {}, { budget: ROW_BY_ROW, onRangeBound: (told) => (upper = told) });
      const ids: number[] = [];
      const iterator = session.readRows(request, new AbortController().signal)[Symbol.asyncIterator]();
      try {
        const first = await iterator.next();
        expect(first.done).toBe(false);
        ids.push(...(JSON.parse(`[${first.value.json.toString('utf8')}]`) as { id: number }[]).map((r) => r.id));
        await db().query('INSERT INTO growing VALUES (5, 5)');
        for (let next = await iterator.next(); !next.done; next = await iterator.next())
          ids.push(...(JSON.parse(`[${next.value.json.toString('utf8')}]`) as { id: number }[]).map((r) => r.id));
      } finally {
        await iterator.return?.();
      }
      expect(upper).toBe('4');
      expect(ids.sort()).toEqual([1, 2, 3, 4]);
      expect(await readRange('growing', 'c', { after: upper! })).toMatchObject({ upper: '5', ids: [5] });
    });

    it('the rows are read in the snapshot the bound was taken in, not one of their own', async () => {
      let reading: Promise<RangeResult> | undefined;
      await withGateClosed(async () => {
        reading = readRange('gated', 'c');
        // The bound's statement has begun the transaction and waits at its first value.
        await waitFor(async () => (await waitingOnGate()) === 1);
        // Outside the snapshot: a new row within the range and a row of it deleted.
        await db().query('INSERT INTO gated_rows VALUES (4, 15)');
        await db().query('DELETE FROM gated_rows WHERE id = 2');
      });
      await expect(reading).resolves.toMatchObject({ upper: '30', ids: [1, 2, 3] });
      // Both changes are there once the read is over.
      expect(await readRange('gated', 'c')).toMatchObject({ upper: '30', ids: [1, 3, 4] });
    });
  });

  describe('the session afterwards', () => {
    it('is outside any transaction after a ranged read', async () => {
      await readRange('events', 'seq');
      await expectOutsideTransaction();
    });

    it('after a read that fails while its rows stream', async () => {
      await expect(readRange('failing', 'c', {}, { budget: ROW_BY_ROW })).rejects.toMatchObject({
        name: 'DatasourceQueryError',
        table: 'failing',
        message: expect.stringContaining('boom at 3'),
      });
      await expectOutsideTransaction();
    });

    it('after a bound that fails', async () => {
      await db().query('CREATE TABLE doomed (id INT PRIMARY KEY, c INT)');
      const request = await rangedRequest('doomed', 'c', {}, { onRangeBound: () => undefined });
      await db().query('DROP TABLE doomed');
      const read = async () => {
        for await (const _ of session.readRows(request, new AbortController().signal)) throw new Error('no rows expected');
      };
      await expect(read()).rejects.toMatchObject({ name: 'DatasourceQueryError', message: expect.stringMatching(/ER_NO_SUCH_TABLE/) });
      await expectOutsideTransaction();
    });

    it('after a listener that throws', async () => {
      const request = await rangedRequest(
        'events',
        'seq',
        {},
        {
          onRangeBound: () => {
            throw new Error('listener failed');
          },
        },
      );
      const read = async () => {
        for await (const _ of session.readRows(request, new AbortController().signal)) throw new Error('no rows expected');
      };
      await expect(read()).rejects.toThrow('listener failed');
      await expectOutsideTransaction();
    });

    it('after an abort between batches', async () => {
      const controller = new AbortController();
      const reason = new Error('job aborted');
      const request = await rangedRequest('indexed', 'c', {}, { budget: ROW_BY_ROW, onRangeBound: () => undefined });
      const iterator = session.readRows(request, controller.signal)[Symbol.asyncIterator]();
      try {
        expect((await iterator.next()).done).toBe(false);
        controller.abort(reason);
        await expect(iterator.next()).rejects.toBe(reason);
      } finally {
        await iterator.return?.();
      }
      await expectOutsideTransaction();
    });

    it('after an abort while the bound is being taken', async () => {
      const controller = new AbortController();
      const reason = new Error('job aborted');
      await withGateClosed(async () => {
        const result = readRange('gated', 'c', {}, {}, controller.signal);
        await waitFor(async () => (await waitingOnGate()) === 1);
        controller.abort(reason);
        await expect(result).rejects.toBe(reason);
        // KILL QUERY ended the wait: nothing of the session is left waiting on the lock.
        await waitFor(async () => (await waitingOnGate()) === 0);
      });
      await expectOutsideTransaction();
    });

    it('after the consumer stops early', async () => {
      const request = await rangedRequest('indexed', 'c', {}, { budget: ROW_BY_ROW, onRangeBound: () => undefined });
      for await (const batch of session.readRows(request, new AbortController().signal)) {
        expect(batch.rowCount).toBe(1);
        break;
      }
      await expectOutsideTransaction();
    });
  });

  describe('plans', () => {
    it('the range is a range scan of the index on the cursor, and the bound reads no rows', async () => {
      const request = await rangedRequest('indexed', 'c', { after: '49000' });
      const select = renderSql(buildSelect(rangeRequest(request, '49100')));
      const plan = await db().query<{ key: string | null; type: string }>(`EXPLAIN ${select}`);
      expect(plan).toHaveLength(1);
      expect(plan[0]).toMatchObject({ key: 'c_idx', type: 'range' });

      const bound = await db().query<{ select_type: string; Extra: string }>(`EXPLAIN ${renderSql(boundSelect(request))}`);
      expect(bound.find((step) => step.select_type === 'DERIVED')).toMatchObject({ Extra: 'Select tables optimized away' });
      expect(await readRange('indexed', 'c', { after: '49000' })).toMatchObject({
        upper: '50000',
        ids: Array.from({ length: 100 }, (_, i) => 4901 + i),
      });
    });
  });
});
