import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeSqliteDatabase, sqliteResultCodeName } from './node-sqlite-driver.js';

describe('NodeSqliteDatabase (the embedded store on node:sqlite)', () => {
  let dir: string;
  let db: NodeSqliteDatabase;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-node-sqlite-'));
    db = new NodeSqliteDatabase(join(dir, 'store.db'));
    db.exec('CREATE TABLE jobs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, size INTEGER)');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells statements that return rows from those that change them, as TypeORM asks', () => {
    const insert = db.prepare('INSERT INTO jobs (name, size) VALUES (?, ?)');
    expect(insert.reader).toBe(false);
    expect(insert.run('a', 9_007_199_254_740_991)).toEqual({ changes: 1, lastInsertRowid: 1 });
    const select = db.prepare('SELECT id, name, size FROM jobs WHERE name = ?');
    expect(select.reader).toBe(true);
    expect(select.all('a')).toEqual([{ id: 1, name: 'a', size: 9_007_199_254_740_991 }]);
    expect(db.prepare('UPDATE jobs SET size = 1 RETURNING id').reader).toBe(true);
  });

  it('answers a pragma with its rows', () => {
    expect(db.pragma('table_info("jobs")')).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'name', notnull: 1 })]));
    expect(db.pragma('foreign_keys')).toEqual([{ foreign_keys: 1 }]);
  });

  it("names a constraint failure as SQLite does (the codes the store's error handling reads)", () => {
    db.prepare('INSERT INTO jobs (id, name) VALUES (?, ?)').run(1, 'a');
    const failure = (sql: string, ...values: (string | number | null)[]) => {
      try {
        db.prepare(sql).run(...values);
      } catch (error) {
        return error as { code?: string; message?: string };
      }
      throw new Error(`${sql} did not fail`);
    };
    expect(failure('INSERT INTO jobs (id, name) VALUES (?, ?)', 2, 'a')).toMatchObject({
      code: 'SQLITE_CONSTRAINT_UNIQUE',
      message: expect.stringMatching(/UNIQUE constraint failed: jobs\.name$/),
    });
    expect(failure('INSERT INTO jobs (id, name) VALUES (?, ?)', 1, 'b')).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(failure('INSERT INTO jobs (id, name) VALUES (?, ?)', 3, null)).toMatchObject({ code: 'SQLITE_CONSTRAINT_NOTNULL' });
    expect(() => db.prepare('SELECT nothing FROM nowhere')).toThrow(expect.objectContaining({ code: 'SQLITE_ERROR' }));
  });

  it('gives up on a database another connection holds after its busy timeout, as SQLITE_BUSY', () => {
    const other = new NodeSqliteDatabase(join(dir, 'store.db'), { timeout: 50 });
    try {
      db.exec('BEGIN IMMEDIATE');
      expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    } finally {
      db.exec('ROLLBACK');
      other.close();
    }
  });

  it('cannot open a file in a folder that is not there: SQLITE_CANTOPEN', () => {
    expect(() => new NodeSqliteDatabase(join(dir, 'missing', 'store.db'))).toThrow(expect.objectContaining({ code: 'SQLITE_CANTOPEN' }));
  });

  it('closes once, and again without an error', () => {
    const other = new NodeSqliteDatabase(':memory:');
    other.close();
    expect(() => other.close()).not.toThrow();
  });

  it('names extended codes it does not list by their primary code', () => {
    expect(sqliteResultCodeName(2067)).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(sqliteResultCodeName(261)).toBe('SQLITE_BUSY'); // SQLITE_BUSY_RECOVERY
    expect(sqliteResultCodeName(4000)).toBe('SQLITE_4000');
  });
});
