import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FilterCondition, FilterOperator, FilterScalar } from '../../src/engine/request/data-request.js';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { buildCopy } from '../../src/engine/connectors/postgres/postgres-sql.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { resolvedDatasource, useTempDatabase } from '../helpers/pg-database.js';

/** What SQL built by concatenation would choke on, or be fooled by. */
const HOSTILE_PARTS = [
  "'",
  "''",
  '"',
  '\\',
  '\\\\',
  '$$',
  '$1',
  '$tag$',
  ';',
  '--',
  '/*',
  '*/',
  '%',
  '_',
  '\u0000',
  '\n',
  '\t',
  'é',
  '😀',
  '\u2028',
  "') OR 1=1 --",
  '); DROP TABLE items; --',
  'NULL',
  '{',
  '}',
  ',',
];

const hostileText = fc.oneof(
  fc.array(fc.constantFrom(...HOSTILE_PARTS), { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('x'.repeat(100_000), "'".repeat(20_000), '\\'.repeat(20_000)),
);
const hostileScalar: fc.Arbitrary<FilterScalar> = fc.oneof(
  { weight: 6, arbitrary: hostileText },
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
);

const OPERATORS: readonly FilterOperator[] = ['eq', 'ne', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'between', 'like'];
const COLUMNS = ['label', 'amount', 'qty', 'day', 'tags', 'mood'] as const;

/** A filter as a product could send it, bypassing HTTP validation: the connector must hold on its own. */
const hostileFilter = fc
  .tuple(fc.constantFrom(...COLUMNS), fc.constantFrom(...OPERATORS), fc.array(hostileScalar, { minLength: 1, maxLength: 4 }))
  .map(([column, op, values]): Record<string, FilterCondition> => {
    const list = op === 'between' ? [values[0], values[1] ?? values[0]] : ['in', 'nin', 'eq', 'ne'].includes(op) ? values : [values[0]];
    return { [column]: { [op]: list } };
  });

type Outcome = { ids: number[] } | { error: string };

describe('hostile filter values on the PostgreSQL COPY path', () => {
  const db = useTempDatabase('pg_hostile');
  let copy: ConnectorSession;
  let cursor: ConnectorSession;
  let table: TableInfo;

  beforeAll(async () => {
    await db().query(String.raw`
      CREATE TYPE mood AS ENUM ('ok', 'it''s');
      CREATE TABLE items (id int PRIMARY KEY, label text, amount numeric(10,2), qty int, day date, tags text[], mood mood);
      INSERT INTO items VALUES
        (1, '''', 1.50, 1, '2024-01-01', ARRAY['''', '$$'], 'ok'),
        (2, '$$', 2.00, 2, '2024-01-02', ARRAY['\'], 'it''s'),
        (3, '\', -1, 3, '2024-01-03', '{}', NULL),
        (4, ''') OR 1=1 --', 0, NULL, NULL, NULL, 'ok'),
        (5, 'é😀', NULL, 5, '2024-01-05', ARRAY['NULL', NULL], 'it''s'),
        (6, NULL, 6, 6, '2024-01-06', ARRAY['{', '}', ','], NULL),
        (7, '%_', 7, 7, '2024-01-07', ARRAY['x'], 'ok');
    `);
    const datasource = resolvedDatasource(db());
    copy = await new PostgresConnector('copy').open(datasource, { connectTimeoutMs: 5_000 });
    cursor = await new PostgresConnector('cursor').open(datasource, { connectTimeoutMs: 5_000 });
    table = (await copy.discover(['public'], new AbortController().signal)).tables.get('items') as TableInfo;
  });

  afterAll(async () => {
    await copy?.close();
    await cursor?.close();
  });

  const outcome = async (session: ConnectorSession, filters: Record<string, FilterCondition>): Promise<Outcome> => {
    try {
      const parts: string[] = [];
      const id = table.columns.filter((c) => c.name === 'id');
      for await (const batch of session.readRows({ table, columns: id, filters }, new AbortController().signal))
        parts.push(batch.json.toString('utf8'));
      return { ids: (JSON.parse(`[${parts.join(',')}]`) as { id: number }[]).map((r) => r.id) };
    } catch (error) {
      // The server's verdict on the value (invalid input, bad encoding), without our wording around it.
      return { error: /SQLSTATE (\w{5})/.exec((error as Error).message)?.[1] ?? (error as Error).message };
    }
  };

  it('binds every value: the COPY statement is the same whatever the values say', () => {
    fc.assert(
      fc.property(hostileFilter, (filters) => {
        const statement = buildCopy({ table, columns: table.columns, filters });
        expect(statement).not.toBeNull();
        const shape = (text: string) => text.replace(/fetcher\.p\d+/g, 'fetcher.pN');
        // Only the operators and the column decide the SQL; what the values are never does.
        const blank = Object.fromEntries(
          Object.entries(filters).map(([c, condition]) => [
            c,
            Object.fromEntries(Object.entries(condition).map(([op, list]) => [op, list!.map((v) => (v === null ? null : 'v'))])),
          ]),
        );
        expect(shape(statement!.copy)).toBe(shape(buildCopy({ table, columns: table.columns, filters: blank })!.copy));
      }),
      { seed: 20261201, numRuns: 400 },
    );
  });

  it('gives the same rows (or the same refusal) as the cursor path with bind parameters, for every operator and column type', async () => {
    await fc.assert(
      fc.asyncProperty(hostileFilter, async (filters) => {
        expect(await outcome(copy, filters)).toEqual(await outcome(cursor, filters));
      }),
      { seed: 20261201, numRuns: 250 },
    );
    // Nothing a value said was run as SQL.
    expect((await db().query<{ n: string }>('SELECT count(*) AS n FROM items')).rows[0].n).toBe('7');
  }, 120_000);
});
