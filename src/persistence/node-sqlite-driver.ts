import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { DataSourceOptions } from 'typeorm';

/**
 * The embedded store on Node's own SQLite (`node:sqlite`) instead of the native better-sqlite3
 * build: TypeORM's better-sqlite3 driver takes its database class as the `driver` option, and
 * uses only the part of it below (open, prepare, pragma, close; a statement's `reader`, `all`,
 * `run`). Nothing to compile at install, on any platform Node runs on.
 */
export class NodeSqliteDatabase {
  private readonly db: DatabaseSync;

  constructor(path: string, options: { readonly?: boolean; timeout?: number } = {}) {
    this.db = translatingErrors(() => new DatabaseSync(path, { readOnly: options.readonly ?? false, timeout: options.timeout ?? 5_000 }));
  }

  prepare(sql: string): NodeSqliteStatement {
    return new NodeSqliteStatement(translatingErrors(() => this.db.prepare(sql)));
  }

  /** better-sqlite3's `pragma`: the statement's rows. */
  pragma(source: string): unknown[] {
    return this.prepare(`PRAGMA ${source}`).all();
  }

  exec(sql: string): this {
    translatingErrors(() => this.db.exec(sql));
    return this;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

export class NodeSqliteStatement {
  /** True for a statement that returns rows (better-sqlite3's name); TypeORM then calls `all`. */
  readonly reader: boolean;

  constructor(private readonly statement: StatementSync) {
    this.reader = statement.columns().length > 0;
  }

  all(...parameters: SQLInputValue[]): unknown[] {
    return translatingErrors(() => this.statement.all(...parameters));
  }

  run(...parameters: SQLInputValue[]): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return translatingErrors(() => this.statement.run(...parameters));
  }
}

/**
 * SQLite's result codes by their names in sqlite3.h, as better-sqlite3 gave them in `code`: the
 * store's error handling (unique violations, a busy or missing database) reads those names, where
 * node:sqlite says `ERR_SQLITE_ERROR` and puts the number in `errcode`.
 */
const RESULT_CODES = new Map<number, string>([
  [1, 'SQLITE_ERROR'],
  [5, 'SQLITE_BUSY'],
  [6, 'SQLITE_LOCKED'],
  [8, 'SQLITE_READONLY'],
  [10, 'SQLITE_IOERR'],
  [11, 'SQLITE_CORRUPT'],
  [13, 'SQLITE_FULL'],
  [14, 'SQLITE_CANTOPEN'],
  [19, 'SQLITE_CONSTRAINT'],
  [275, 'SQLITE_CONSTRAINT_CHECK'],
  [787, 'SQLITE_CONSTRAINT_FOREIGNKEY'],
  [1299, 'SQLITE_CONSTRAINT_NOTNULL'],
  [1555, 'SQLITE_CONSTRAINT_PRIMARYKEY'],
  [2067, 'SQLITE_CONSTRAINT_UNIQUE'],
]);

export function sqliteResultCodeName(errcode: number): string {
  return RESULT_CODES.get(errcode) ?? RESULT_CODES.get(errcode & 0xff) ?? `SQLITE_${errcode}`;
}

function translatingErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    const errcode = (error as { errcode?: unknown }).errcode;
    if (error instanceof Error && typeof errcode === 'number') {
      Object.assign(error, { code: sqliteResultCodeName(errcode) });
    }
    throw error;
  }
}

/**
 * A SQLite store's options: TypeORM's better-sqlite3 driver on this class. TypeORM turns foreign
 * keys on itself; `timeout` is SQLite's busy timeout.
 */
export function nodeSqliteOptions(database: string): DataSourceOptions {
  return { type: 'better-sqlite3', database, driver: NodeSqliteDatabase, timeout: 5_000 };
}
