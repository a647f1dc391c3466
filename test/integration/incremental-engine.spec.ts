import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { FetCode } from '../../src/engine/errors/fet-code.js';
import { useTempDatabase } from '../helpers/pg-database.js';

describe('engine.extract with dataRequest.incremental (PostgreSQL)', () => {
  const engine = createEngine();
  const db = useTempDatabase('incremental_engine');

  beforeAll(async () => {
    await db().query(`
      CREATE SCHEMA sales;
      CREATE TABLE sales.orders (id int PRIMARY KEY, placed_at timestamptz(6), note text, ratio real);
      INSERT INTO sales.orders VALUES (1, '2026-01-01 00:00:00.5+00', 'a', 1), (2, '2026-01-02 00:00:00+00', 'b', 2), (3, NULL, 'c', 3);
      CREATE TABLE customers (id int PRIMARY KEY);
      INSERT INTO customers VALUES (1), (2);`);
  });

  afterAll(async () => {});

  const extract = (
    incremental: object,
    marks?: object,
    mappedFields: object = { pg: { 'sales.orders': ['id', 'note'], customers: ['id'] } },
  ) =>
    engine.extract({
      datasources: { pg: db().url },
      dataRequest: { mappedFields, incremental },
      ...(marks ? { marks: marks as never } : {}),
    });

  it('reads the cursor table’s range and the others in full, and returns each range with the marks that follow', async () => {
    const result = await extract({
      stream: 's',
      cursors: { pg: { 'sales.orders': 'placed_at' } },
      initial: { pg: { 'sales.orders': '2026-01-01T00:00:00.5Z' } },
    });
    expect(JSON.parse(result.bytes!.toString('utf8'))).toEqual({
      pg: {
        customers: [{ id: 1 }, { id: 2 }],
        'sales.orders': [
          { id: 1, note: 'a' },
          { id: 2, note: 'b' },
        ],
      },
    });
    expect(result.incremental).toEqual({
      stream: 's',
      tables: {
        pg: {
          'sales.orders': {
            column: 'placed_at',
            type: 'timestamptz',
            from: '2026-01-01T00:00:00.5Z',
            fromInclusive: true,
            to: '2026-01-02T00:00:00Z',
            rows: 2,
          },
        },
      },
      marks: { pg: { 'sales.orders': { column: 'placed_at', type: 'timestamptz', value: '2026-01-02T00:00:00Z' } } },
    });
    const again = await extract({ stream: 's', cursors: { pg: { 'sales.orders': 'placed_at' } } }, result.incremental!.marks);
    expect(again.rowCounts).toEqual({ pg: { customers: 2, 'sales.orders': 0 } });
    expect(again.incremental!.tables.pg['sales.orders']).toMatchObject({
      from: '2026-01-02T00:00:00Z',
      fromInclusive: false,
      to: '2026-01-02T00:00:00Z',
    });
  });

  it('fails planning with FET-1060 naming a cursor of a refused type, a missing column, a lag on an integer, a mark on another column', async () => {
    const refused = (cursor: string, extra: object = {}, marks?: object) =>
      extract({ stream: 's', cursors: { pg: { 'sales.orders': cursor } }, ...extra }, marks).then(
        () => undefined,
        (error: { code: string; details: unknown[] }) => ({ code: error.code, details: error.details }),
      );
    expect(await refused('note')).toEqual({
      code: FetCode.SchemaValidationFailed,
      details: [expect.objectContaining({ type: 'cursor_type_refused', datasource: 'pg', table: 'sales.orders', field: 'note' })],
    });
    expect((await refused('ratio'))?.details).toEqual([expect.objectContaining({ type: 'cursor_type_refused', field: 'ratio' })]);
    expect((await refused('gone'))?.details).toEqual([expect.objectContaining({ type: 'cursor_not_found', field: 'gone' })]);
    expect((await refused('id', { lagSeconds: 5 }))?.details).toEqual([expect.objectContaining({ type: 'lag_not_allowed', field: 'id' })]);
    const marks = { pg: { 'sales.orders': { column: 'placed_at', type: 'timestamptz', value: '2026-01-01T00:00:00Z' } } };
    expect((await refused('id', {}, marks))?.details).toEqual([expect.objectContaining({ type: 'cursor_mismatch' })]);
  });

  it('refuses malformed marks, and marks without incremental, naming them', async () => {
    await expect(
      extract({ stream: 's', cursors: { pg: { 'sales.orders': 'id' } } }, { pg: { 'sales.orders': { column: 'id' } } }),
    ).rejects.toMatchObject({
      fields: { 'marks.pg.sales.orders': "a mark's type is one of integer, decimal, date, timestamp, timestamptz, objectid" },
    });
    await expect(
      engine.extract({
        datasources: { pg: db().url },
        dataRequest: { mappedFields: { pg: { customers: ['id'] } } },
        marks: { pg: { customers: { column: 'id', type: 'integer', value: '1' } } },
      }),
    ).rejects.toMatchObject({ fields: { marks: 'marks come only with dataRequest.incremental' } });
  });
});
