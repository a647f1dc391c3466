import type { Connection } from 'mysql2';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectionOptions, connectMySql, endConnection } from '../../src/engine/connectors/mysql/mysql-client.js';
import { RawRowRenderer } from '../../src/engine/connectors/mysql/mysql-raw-row-renderer.js';
import { interceptRawRows, type RawRowSource, type RowPacket } from '../../src/engine/connectors/mysql/mysql-raw-rows.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import type { RawRow } from '../../src/engine/connectors/mysql/mysql-value-encoders.js';
import { resolvedMySqlDatasource, useTempMariaDatabase } from '../helpers/mariadb-database.js';

/**
 * Pins the mysql2 internals mysql-raw-rows.ts relies on: if an upgrade changes how the Query
 * command hands on row packets, these fail instead of the connector silently falling back (or
 * losing rows).
 */

/** The values of a row packet, read back from its length-encoded bytes. */
function values(packet: RowPacket): (string | null)[] {
  const out: (string | null)[] = [];
  const b = packet.buffer;
  let p = packet.offset;
  while (p < packet.end) {
    const tag = b[p++];
    if (tag === 0xfb) {
      out.push(null);
      continue;
    }
    let n = tag;
    if (tag === 0xfc) [n, p] = [b.readUInt16LE(p), p + 2];
    else if (tag === 0xfd) [n, p] = [b.readUIntLE(p, 3), p + 3];
    else if (tag === 0xfe) [n, p] = [b.readUInt32LE(p), p + 8];
    out.push(b.toString('latin1', p, p + n));
    p += n;
  }
  return out;
}

interface Intercepted {
  readonly rows: (string | null)[][];
  readonly parsed: RawRow[];
  readonly parsedEvents: number;
  readonly source: RawRowSource | undefined;
}

/** Runs `sql` with the hook installed; resolves at the query's end with what the hook saw. */
function intercept(connection: Connection, sql: string, parse = false): Promise<Intercepted> {
  return new Promise((resolve, reject) => {
    const rows: (string | null)[][] = [];
    const parsed: RawRow[] = [];
    let parsedEvents = 0;
    const query = connection.query({ sql, rowsAsArray: true });
    const source = interceptRawRows(
      connection,
      query,
      (packet) => {
        rows.push(values(packet));
        if (parse) parsed.push(source!.parse(packet));
      },
      reject,
    );
    query.on('result', () => parsedEvents++);
    query.on('error', reject);
    query.on('end', () => resolve({ rows, parsed, parsedEvents, source }));
  });
}

describe('mysql2 row packets read raw (mysql-raw-rows.ts)', () => {
  const db = useTempMariaDatabase('my_raw_rows');
  let connection: Connection;

  beforeAll(async () => {
    await db().query("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO t VALUES (1, NULL), (2, 'two'), (3, 'drei')");
    ({ connection } = await connectMySql(connectionOptions(resolvedMySqlDatasource(db()), undefined, 5_000), 5_000));
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    if (connection !== undefined) await endConnection(connection, 2_000);
  });

  it('hands every row packet to the hook, in order, and none to mysql2 parsing; the query ends as usual', async () => {
    const seen = await intercept(connection, 'SELECT id, v FROM t ORDER BY id', true);
    expect(seen.source).toBeDefined();
    expect(seen.rows).toEqual([
      ['1', null],
      ['2', 'two'],
      ['3', 'drei'],
    ]);
    expect(seen.parsedEvents).toBe(0);
    // mysql2's own parser, for the values the renderer leaves to it, reads the same packets.
    expect(seen.parsed).toEqual([
      [1, null],
      [2, 'two'],
      [3, 'drei'],
    ]);
    // The connection goes on with the next command.
    expect((await intercept(connection, 'SELECT 42')).rows).toEqual([['42']]);
  });

  it('hands a row over 16 MiB, split into several protocol packets, on as one packet', async () => {
    // 0xffffff-byte payloads continue in the next packet: exactly 0xffffff (then an empty
    // packet) and one byte more. A 3-byte length prefix takes 4 of the payload's bytes.
    for (const payload of [0xff_ff_ff, 0xff_ff_ff + 1]) {
      const seen = await intercept(connection, `SELECT REPEAT('x', ${payload - 4})`);
      expect(seen.rows).toHaveLength(1);
      expect(seen.rows[0][0]).toHaveLength(payload - 4);
      expect(seen.rows[0][0]).toBe('x'.repeat(payload - 4));
    }
  });

  it('leaves the query to mysql2 when the connection does not use the value options the hook mirrors', async () => {
    const other = await connectMySql({ ...connectionOptions(resolvedMySqlDatasource(db()), undefined, 5_000), dateStrings: false }, 5_000);
    try {
      const seen = await intercept(other.connection, 'SELECT id FROM t ORDER BY id');
      expect(seen.source).toBeUndefined();
      expect(seen.rows).toEqual([]);
      expect(seen.parsedEvents).toBe(3);
    } finally {
      await endConnection(other.connection, 2_000);
    }
  });

  it('is what the connector reads with: rows are rendered from packets, not from parsed rows', async () => {
    const render = vi.spyOn(RawRowRenderer.prototype, 'render');
    const session = await new MySqlConnector().open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
    try {
      const table = (await session.discover(null, new AbortController().signal)).tables.get('t')!;
      const parts: string[] = [];
      for await (const batch of session.readRows({ table, columns: table.columns }, new AbortController().signal))
        parts.push(batch.json.toString('utf8'));
      expect(parts.join(',')).toBe('{"id":1,"v":null},{"id":2,"v":"two"},{"id":3,"v":"drei"}');
      expect(render).toHaveBeenCalledTimes(3);
    } finally {
      await session.close();
    }
  });
});
