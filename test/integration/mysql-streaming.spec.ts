import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { createTempMariaDatabase, resolvedMySqlDatasource, type TempMariaDatabase } from '../helpers/mariadb-database.js';

const ROWS = 200_000;

describe('MySqlConnector streaming and abort', () => {
  const connector = new MySqlConnector();
  let db: TempMariaDatabase;
  let session: ConnectorSession;
  let big: TableInfo;
  let slow: TableInfo;

  /** Statements of our connector still running on the server, apart from the observer itself. */
  const runningStatements = async (pattern: string): Promise<number> => {
    const rows = await db.query<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST
       WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND COMMAND = 'Query' AND INFO LIKE ?`,
      [`%${pattern}%`],
    );
    return Number(rows[0].n);
  };

  const waitUntil = async (check: () => Promise<boolean>, timeoutMs: number): Promise<number> => {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return Date.now() - started;
  };

  beforeAll(async () => {
    db = await createTempMariaDatabase('my_streaming');
    // ~30 MB of rows, far more than socket buffers hold; inserted in reverse key order.
    await db.query(`
      CREATE TABLE big (id INT PRIMARY KEY, label VARCHAR(200));
      INSERT INTO big SELECT ${ROWS + 1} - seq, REPEAT(MD5(seq), 4) FROM seq_1_to_${ROWS};
      CREATE VIEW slow AS SELECT 1 AS n, SLEEP(30) AS z;
      CREATE TABLE small (id INT PRIMARY KEY);
      INSERT INTO small VALUES (1), (2);
    `);
    session = await connector.open(resolvedMySqlDatasource(db), { connectTimeoutMs: 5_000 });
    const tables = (await session.discover(null, new AbortController().signal)).tables;
    big = tables.get('big')!;
    slow = tables.get('slow')!;
  });

  afterAll(async () => {
    await session?.close();
    await db?.drop();
  });

  const readSmall = async (s: ConnectorSession = session): Promise<number> => {
    const small = (await s.discover(null, new AbortController().signal)).tables.get('small')!;
    let n = 0;
    for await (const batch of s.readRows({ table: small, columns: small.columns }, new AbortController().signal)) n += batch.rowCount;
    return n;
  };

  it('streams a large table in many bounded batches, in key order', async () => {
    let rows = 0;
    let batches = 0;
    let largest = 0;
    let expectedId = 1;
    for await (const batch of session.readRows({ table: big, columns: big.columns }, new AbortController().signal)) {
      batches++;
      rows += batch.rowCount;
      largest = Math.max(largest, batch.rowCount);
      const ids = (JSON.parse('[' + batch.json.toString('utf8') + ']') as { id: number }[]).map((r) => r.id);
      expect(ids[0]).toBe(expectedId);
      expectedId = ids[ids.length - 1] + 1;
    }
    expect(rows).toBe(ROWS);
    expect(batches).toBeGreaterThanOrEqual(50);
    expect(largest).toBeLessThanOrEqual(5_000);
  });

  it('lets the consumer stop early; the statement ends and the session stays usable', async () => {
    let batches = 0;
    for await (const batch of session.readRows({ table: big, columns: big.columns }, new AbortController().signal)) {
      expect(batch.rowCount).toBeGreaterThan(0);
      if (++batches === 2) break;
    }
    expect(batches).toBe(2);
    expect(await runningStatements('FROM `' + db.name + '`.`big`')).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('reads the next batch only when asked (backpressure)', async () => {
    const iterator = session.readRows({ table: big, columns: big.columns }, new AbortController().signal)[Symbol.asyncIterator]();
    try {
      const first = await iterator.next();
      expect(first.done).toBe(false);
      // While the consumer holds a batch the connection is paused: the server cannot finish
      // sending the table and the statement is still running a while later.
      await new Promise((r) => setTimeout(r, 500));
      expect(await runningStatements('FROM `' + db.name + '`.`big`')).toBe(1);
      const second = await iterator.next();
      expect(second.done).toBe(false);
    } finally {
      await iterator.return?.();
    }
    expect(await runningStatements('FROM `' + db.name + '`.`big`')).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('aborts a running statement promptly and leaves nothing running on the server', async () => {
    const controller = new AbortController();
    const reading = (async () => {
      for await (const _ of session.readRows({ table: slow, columns: slow.columns }, controller.signal)) {
        // never reached: the view sleeps 30 s
      }
    })();
    await waitUntil(async () => (await runningStatements('`slow`')) === 1, 5_000);
    await new Promise((r) => setTimeout(r, 300));
    const abortedAt = Date.now();
    controller.abort();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - abortedAt).toBeLessThan(2_000);
    const gone = await waitUntil(async () => (await runningStatements('`slow`')) === 0, 1_000);
    expect(gone).toBeLessThan(1_000);
    // KILL QUERY hit only that statement: the session goes on.
    expect(await readSmall()).toBe(2);
  });

  it('throws the abort reason when aborted between batches', async () => {
    const controller = new AbortController();
    const reason = new Error('job timed out');
    const iterator = session.readRows({ table: big, columns: big.columns }, controller.signal)[Symbol.asyncIterator]();
    try {
      await iterator.next();
      controller.abort(reason);
      await expect(iterator.next()).rejects.toBe(reason);
    } finally {
      await iterator.return?.();
    }
    expect(await runningStatements('FROM `' + db.name + '`.`big`')).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('refuses to start with an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const iterator = session.readRows({ table: big, columns: big.columns }, controller.signal)[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    await expect(connector.open(resolvedMySqlDatasource(db), { connectTimeoutMs: 5_000, signal: controller.signal })).rejects.toMatchObject(
      { name: 'AbortError' },
    );
  });

  it('closes promptly a session whose stream was left unfinished, stopping the statement', async () => {
    const other = await connector.open(resolvedMySqlDatasource(db), { connectTimeoutMs: 5_000 });
    const iterator = other.readRows({ table: big, columns: big.columns }, new AbortController().signal)[Symbol.asyncIterator]();
    await iterator.next();
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await runningStatements('FROM `' + db.name + '`.`big`')).toBe(0);
    await expect(iterator.next()).rejects.toMatchObject({ name: 'DatasourceQueryError' });
  });
});
