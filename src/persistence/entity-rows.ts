import type { DataSource, EntityMetadata } from 'typeorm';
import type { SqlParameters } from './sql-parameters.js';

type ColumnMetadata = EntityMetadata['columns'][number];

/** A column set to an SQL expression over the row itself (`attempts + 1`), not to a value. */
export type SqlExpression = () => string;

/**
 * One entity's columns for raw SQL, converted both ways by TypeORM's own driver (JSON, timestamps,
 * transformers), so a hand-written statement reads and writes exactly what the repository would.
 * For the hot paths: a data-modifying CTE on PostgreSQL where the query builder needs a
 * transaction of several round trips, and the per-job reads, where building and hydrating a
 * query through the builder costs more CPU than the database spends on it.
 */
export class EntityRows<T extends object> {
  private readonly metadata: EntityMetadata;

  constructor(
    private readonly dataSource: DataSource,
    entity: string,
  ) {
    this.metadata = dataSource.getMetadata(entity);
  }

  get table(): string {
    return quoted(this.metadata.tableName);
  }

  /** `INSERT INTO table (…) VALUES (…)` of every column `row` sets (the others take their defaults). */
  insert(row: Partial<T>, parameters: SqlParameters): string {
    const { columns, values } = this.bound(row, parameters, false);
    return `INSERT INTO ${this.table} (${columns.join(', ')}) VALUES (${values.join(', ')})`;
  }

  /** One multi-row `INSERT INTO table (…) VALUES (…), (…)`; every row sets the same columns. */
  insertMany(rows: readonly Partial<T>[], parameters: SqlParameters): string {
    const bound = rows.map((row) => this.bound(row, parameters, false));
    const tuples = bound.map(({ values }) => `(${values.join(', ')})`);
    return `INSERT INTO ${this.table} (${bound[0].columns.join(', ')}) VALUES ${tuples.join(', ')}`;
  }

  /**
   * `INSERT INTO table (…) SELECT $1::type, … FROM source`: the row is written once per row of
   * `source` (a CTE), so it is written only when that statement changed something. Each value is
   * cast to its column's type, which a SELECT list does not infer from the target.
   */
  insertFrom(row: Partial<T>, source: string, parameters: SqlParameters): string {
    const { columns, values } = this.bound(row, parameters, true);
    return `INSERT INTO ${this.table} (${columns.join(', ')}) SELECT ${values.join(', ')} FROM ${source}`;
  }

  /** The columns `row` sets and their placeholders (cast to the column's type when asked). */
  private bound(row: Partial<T>, parameters: SqlParameters, cast: boolean): { columns: string[]; values: string[] } {
    const columns: string[] = [];
    const values: string[] = [];
    for (const column of this.metadata.columns) {
      const value = (row as Record<string, unknown>)[column.propertyName];
      if (value === undefined) continue;
      columns.push(quoted(column.databaseName));
      const placeholder = parameters.bind(this.dataSource.driver.preparePersistentValue(value, column));
      values.push(cast ? `${placeholder}::${this.dataSource.driver.normalizeType(column)}` : placeholder);
    }
    return { columns, values };
  }

  /** `"col" = $n, …` for an UPDATE's SET: values bound, expressions written as they are. */
  set(changes: { readonly [K in keyof T]?: T[K] | SqlExpression }, parameters: SqlParameters): string {
    const assignments: string[] = [];
    for (const column of this.metadata.columns) {
      const change = (changes as Record<string, unknown>)[column.propertyName];
      if (change === undefined) continue;
      const value =
        typeof change === 'function'
          ? (change as SqlExpression)()
          : parameters.bind(this.dataSource.driver.preparePersistentValue(change, column));
      assignments.push(`${quoted(column.databaseName)} = ${value}`);
    }
    return assignments.join(', ');
  }

  /** `value` bound as `property`'s column stores it (a Date in SQLite's text form, JSON as text). */
  bind(property: keyof T & string, value: unknown, parameters: SqlParameters): string {
    return parameters.bind(this.dataSource.driver.preparePersistentValue(value, this.columnOf(property)));
  }

  /** `SELECT * FROM table WHERE …` (what follows is the caller's: conditions, order, limit), hydrated. */
  async select(manager: { query: DataSource['query'] }, rest: string, parameters: SqlParameters): Promise<T[]> {
    const rows: Record<string, unknown>[] = await manager.query(`SELECT * FROM ${this.table} WHERE ${rest}`, parameters.values);
    return rows.map((row) => this.hydrate(row));
  }

  /** The database name of a property, quoted, for a WHERE clause. */
  column(property: keyof T & string): string {
    return quoted(this.columnOf(property).databaseName);
  }

  private columnOf(property: string): ColumnMetadata {
    const column = this.metadata.findColumnWithPropertyName(property);
    if (!column) throw new Error(`${this.metadata.name} has no column ${property}`);
    return column;
  }

  /** A row as `RETURNING *` or `SELECT *` gives it, as the entity the repository would have read. */
  hydrate(raw: Record<string, unknown>): T {
    const entity: Record<string, unknown> = {};
    for (const column of this.metadata.columns) {
      entity[column.propertyName] = this.dataSource.driver.prepareHydratedValue(raw[column.databaseName], column);
    }
    return entity as T;
  }
}

function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
