import { describe, expect, it } from 'vitest';
import type { CursorKind, CursorRange } from '../../incremental/cursor-range.js';
import type { ColumnInfo, RowBatch, TableInfo, TableReadRequest } from '../shared/engine-connector.js';
import {
  bindMark,
  boundSelect,
  COMMIT_SQL,
  type RangeReadSession,
  rangeRequest,
  readRange,
  renderedMark,
  SNAPSHOT_SQL,
} from './mysql-range-read.js';
import { buildSelect, renderSql } from './mysql-sql.js';
import { mysqlColumn } from './testing/mysql-columns.js';

const col = mysqlColumn;

const ID = col('id', 'int', 'int(11)');
const SEQ = col('seq', 'bigint', 'bigint(20) unsigned');
const AMOUNT = col('amount', 'decimal', 'decimal(38,10)', 38, 10);
const DAY = col('day', 'date');
const LOCAL = col('local`at', 'datetime', 'datetime(6)');
const STAMP = col('stamp', 'timestamp', 'timestamp(6)');
const NOTE = col('note', 'varchar', 'varchar(20)');

const TABLE: TableInfo = {
  schema: 'shop',
  name: 'events',
  key: 'events',
  columns: [ID, SEQ, AMOUNT, DAY, LOCAL, STAMP, NOTE],
  primaryKey: ['id'],
};
const FROM = '`shop`.`events`';

const ranged = (column: ColumnInfo, kind: CursorKind, bounds: Partial<CursorRange> = {}, extra: Partial<TableReadRequest> = {}) =>
  ({ table: TABLE, columns: [ID, column], range: { column, kind, ...bounds }, ...extra }) as TableReadRequest;

describe('the bound statement', () => {
  it('takes the maximum over the whole table, with no lower bound on a first run without initial', () => {
    const sql = boundSelect(ranged(SEQ, 'integer', {}, { filters: { note: { eq: ['x'] } } }));
    // The user's filters stay out: an index on the cursor answers MAX() without reading rows.
    expect(sql.text).toBe(`SELECT \`seq\` FROM (SELECT MAX(${FROM}.\`seq\`) AS \`seq\` FROM ${FROM}) AS \`bound\``);
    expect(sql.values).toEqual([]);
  });

  it('compares with the mark in SQL, exactly, as the filter of the column does', () => {
    const sql = boundSelect(ranged(SEQ, 'integer', { after: '18446744073709551614' }));
    expect(sql.text).toBe(
      `SELECT \`seq\` FROM (SELECT MAX(${FROM}.\`seq\`) AS \`seq\` FROM ${FROM}) AS \`bound\` WHERE \`seq\` > CAST(? AS DECIMAL(65,30))`,
    );
    expect(sql.values).toEqual(['18446744073709551614']);
  });

  it('includes an initial value: the bound only has to reach it', () => {
    const sql = boundSelect(ranged(AMOUNT, 'decimal', { from: '100.0000000001' }));
    expect(sql.text).toBe(
      `SELECT \`amount\` FROM (SELECT MAX(${FROM}.\`amount\`) AS \`amount\` FROM ${FROM}) AS \`bound\` WHERE \`amount\` >= CAST(? AS DECIMAL(65,30))`,
    );
    expect(sql.values).toEqual(['100.0000000001']);
  });

  it('subtracts the lag from a DATETIME, binding the mark in the server form', () => {
    const sql = boundSelect(ranged(LOCAL, 'timestamp', { after: '2024-01-15T10:20:30.123456', lagSeconds: 90 }));
    expect(sql.text).toBe(
      `SELECT \`local\`\`at\` FROM (SELECT MAX(${FROM}.\`local\`\`at\`) - INTERVAL 90 SECOND AS \`local\`\`at\` FROM ${FROM}) AS \`bound\`` +
        ' WHERE `local``at` > CAST(? AS DATETIME(6))',
    );
    expect(sql.values).toEqual(['2024-01-15 10:20:30.123456']);
  });

  it('subtracts the lag from a TIMESTAMP, its UTC mark without the Z', () => {
    const sql = boundSelect(ranged(STAMP, 'timestamptz', { after: '2024-01-15T08:20:30.5Z', lagSeconds: 1 }));
    expect(sql.text).toContain(`(SELECT MAX(${FROM}.\`stamp\`) - INTERVAL 1 SECOND AS \`stamp\` FROM ${FROM})`);
    expect(sql.values).toEqual(['2024-01-15 08:20:30.5']);
  });

  it('casts a lagged DATE back to a DATE, so the lag counts in whole days', () => {
    const sql = boundSelect(ranged(DAY, 'date', { from: '2024-01-01', lagSeconds: 3600 }));
    expect(sql.text).toBe(
      `SELECT \`day\` FROM (SELECT CAST(MAX(${FROM}.\`day\`) - INTERVAL 3600 SECOND AS DATE) AS \`day\` FROM ${FROM}) AS \`bound\`` +
        ' WHERE `day` >= CAST(? AS DATE)',
    );
    expect(sql.values).toEqual(['2024-01-01']);
  });

  it('takes no lag for a kind that is not a time, and refuses a lag that is no whole number', () => {
    expect(boundSelect(ranged(ID, 'integer', { lagSeconds: 5 })).text).not.toContain('INTERVAL');
    expect(() => boundSelect(ranged(STAMP, 'timestamptz', { lagSeconds: 1.5 }))).toThrow(/whole number/);
    expect(() => boundSelect(ranged(STAMP, 'timestamptz', { lagSeconds: -1 }))).toThrow(/whole number/);
    expect(() => boundSelect({ table: TABLE, columns: [ID] })).toThrow(/not a ranged read/);
  });
});

describe('binding marks', () => {
  it('puts rendered date-times back in the server form, microseconds kept', () => {
    expect(bindMark('2024-01-15T10:20:30.123456', 'timestamp')).toBe('2024-01-15 10:20:30.123456');
    expect(bindMark('2024-01-15T10:20:30.123456Z', 'timestamptz')).toBe('2024-01-15 10:20:30.123456');
    expect(bindMark('2024-01-15T10:20:30Z', 'timestamptz')).toBe('2024-01-15 10:20:30');
  });

  it('leaves any other text to the filter (an offset it converts, integers and decimals exact)', () => {
    expect(bindMark('2024-01-15T10:20:30+02:00', 'timestamptz')).toBe('2024-01-15T10:20:30+02:00');
    expect(bindMark('2024-01-15', 'date')).toBe('2024-01-15');
    expect(bindMark('18446744073709551615', 'integer')).toBe('18446744073709551615');
    expect(bindMark('-0.0000000001', 'decimal')).toBe('-0.0000000001');
  });
});

describe('the bound as a mark', () => {
  const range = (column: ColumnInfo, kind: CursorKind): CursorRange => ({ column, kind });

  it('renders the value as the rows render its column', () => {
    expect(renderedMark(7, range(ID, 'integer'))).toBe('7');
    expect(renderedMark('18446744073709551615', range(SEQ, 'integer'))).toBe('18446744073709551615');
    expect(renderedMark('1234567890123456789012345678.0123456789', range(AMOUNT, 'decimal'))).toBe(
      '1234567890123456789012345678.0123456789',
    );
    expect(renderedMark('2024-02-29', range(DAY, 'date'))).toBe('2024-02-29');
    expect(renderedMark('2024-01-15 10:20:30.000100', range(LOCAL, 'timestamp'))).toBe('2024-01-15T10:20:30.000100');
    // MAX(ts) - INTERVAL … arrives as a DATETIME: still the TIMESTAMP's form.
    expect(renderedMark('2024-01-15 10:20:25.123456', range(STAMP, 'timestamptz'))).toBe('2024-01-15T10:20:25.123456Z');
  });

  it('is null without a value, and for a zero date, which the rows render as null', () => {
    expect(renderedMark(null, range(SEQ, 'integer'))).toBeNull();
    expect(renderedMark(undefined, range(SEQ, 'integer'))).toBeNull();
    expect(renderedMark('0000-00-00 00:00:00', range(LOCAL, 'timestamp'))).toBeNull();
  });
});

describe('the read of a range', () => {
  it('bounds the cursor on both sides, ANDed with the filters, and is an ordinary read', () => {
    const request = ranged(STAMP, 'timestamptz', { after: '2024-01-15T08:00:00Z' }, { filters: { note: { eq: ['x'] } } });
    const read = rangeRequest(request, '2024-01-15T09:00:00.5Z');
    expect(read.range).toBeUndefined();
    const sql = buildSelect(read);
    expect(sql.text).toBe(
      `SELECT \`id\`, \`stamp\` FROM ${FROM} WHERE \`note\` = ? AND \`stamp\` > CAST(? AS DATETIME(6)) AND \`stamp\` <= CAST(? AS DATETIME(6)) ORDER BY ${FROM}.\`id\``,
    );
    expect(sql.values).toEqual(['x', '2024-01-15 08:00:00', '2024-01-15 09:00:00.5']);
  });
});

/** A session that records its statements, answers the bound query with `bound` and reads `batches`. */
function fakeSession(bound: unknown, batches: RowBatch[], fail?: { sql?: string; readAfter?: number }) {
  const log: string[] = [];
  const session: RangeReadSession = {
    async run(sql, signal) {
      // As the session's statements do (abortableRead).
      signal.throwIfAborted();
      log.push(sql.startsWith('SELECT') ? 'bound' : sql);
      if (fail?.sql !== undefined && sql.startsWith(fail.sql)) throw new Error(`${fail.sql} failed`);
      return sql.startsWith('SELECT') ? [[bound]] : [];
    },
    async *read(request) {
      log.push(`read ${renderSql(buildSelect(request)).split(' WHERE ')[1]}`);
      for (const [i, batch] of batches.entries()) {
        if (fail?.readAfter === i) throw new Error('read failed');
        log.push('batch');
        yield batch;
      }
    },
    async rollback(aborted) {
      log.push(aborted ? 'rollback (aborted)' : 'rollback');
    },
  };
  return { session, log };
}

const batch = (n: number): RowBatch => ({ json: Buffer.from(`{"id":${n}}`), rowCount: 1 });

describe('readRange', () => {
  const signal = new AbortController().signal;

  const consume = async (rows: AsyncIterable<RowBatch>, log: string[], stopAfter = Infinity) => {
    let n = 0;
    for await (const _ of rows) {
      log.push('consumed');
      if (++n >= stopAfter) break;
    }
  };

  it('takes the bound in a snapshot, tells it before the first batch, reads and commits', async () => {
    const { session, log } = fakeSession(42, [batch(1), batch(2)]);
    const request = ranged(ID, 'integer', { after: '7' }, { onRangeBound: (upper) => log.push(`bound is ${upper}`) });
    await consume(readRange(session, request, signal), log);
    expect(log).toEqual([
      ...SNAPSHOT_SQL,
      'bound',
      'bound is 42',
      "read `id` > CAST('7' AS DECIMAL(65,30)) AND `id` <= CAST('42' AS DECIMAL(65,30)) ORDER BY `shop`.`events`.`id`",
      'batch',
      'consumed',
      'batch',
      'consumed',
      COMMIT_SQL,
    ]);
  });

  it('reads nothing when there is no bound, tells so, and still ends the transaction', async () => {
    const { session, log } = fakeSession(null, [batch(1)]);
    const request = ranged(ID, 'integer', {}, { onRangeBound: (upper) => log.push(`bound is ${upper}`) });
    await consume(readRange(session, request, signal), log);
    expect(log).toEqual([...SNAPSHOT_SQL, 'bound', 'bound is null', COMMIT_SQL]);
  });

  it('rolls back when the read fails, the bound query fails or the consumer stops early', async () => {
    const failedRead = fakeSession(42, [batch(1), batch(2)], { readAfter: 1 });
    await expect(consume(readRange(failedRead.session, ranged(ID, 'integer'), signal), failedRead.log)).rejects.toThrow('read failed');
    expect(failedRead.log.slice(-3)).toEqual(['batch', 'consumed', 'rollback']);

    const failedBound = fakeSession(42, [batch(1)], { sql: 'SELECT' });
    const told: (string | null)[] = [];
    const request = ranged(ID, 'integer', {}, { onRangeBound: (upper) => told.push(upper) });
    await expect(consume(readRange(failedBound.session, request, signal), failedBound.log)).rejects.toThrow('SELECT failed');
    expect(failedBound.log).toEqual([...SNAPSHOT_SQL, 'bound', 'rollback']);
    expect(told).toEqual([]);

    const stopped = fakeSession(42, [batch(1), batch(2)]);
    await consume(readRange(stopped.session, ranged(ID, 'integer'), signal), stopped.log, 1);
    expect(stopped.log.slice(-3)).toEqual(['batch', 'consumed', 'rollback']);
  });

  it('rolls back when COMMIT fails, and within the abort budget after an abort', async () => {
    const failedCommit = fakeSession(42, [batch(1)], { sql: COMMIT_SQL });
    await expect(consume(readRange(failedCommit.session, ranged(ID, 'integer'), signal), failedCommit.log)).rejects.toThrow(
      'COMMIT failed',
    );
    expect(failedCommit.log.slice(-2)).toEqual([COMMIT_SQL, 'rollback']);

    const controller = new AbortController();
    const aborted = fakeSession(42, [batch(1), batch(2)]);
    const rows = readRange(aborted.session, ranged(ID, 'integer'), controller.signal);
    await expect(
      (async () => {
        for await (const _ of rows) controller.abort(new Error('job aborted'));
      })(),
    ).rejects.toThrow('job aborted');
    // The fake read does not watch the signal: the abort surfaces at the COMMIT, never sent.
    expect(aborted.log.slice(-2)).toEqual(['batch', 'rollback (aborted)']);
  });
});
