import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { resolvedDatasource, useTempDatabase } from '../helpers/pg-database.js';

/**
 * Discovery is a named prepared statement, parsed and planned once per connection. A server side
 * that does not keep it (a pooler handing the session another server connection, simulated here by
 * DEALLOCATE behind pg's back) costs one refused Bind, then the session discovers unnamed.
 */
describe('PostgreSQL discovery as a prepared statement', () => {
  const db = useTempDatabase('pg_prepared_discovery');
  const sessions: ConnectorSession[] = [];

  beforeAll(async () => {
    await db().query(`CREATE TABLE items (id int PRIMARY KEY, label text); CREATE TABLE notes (id bigint PRIMARY KEY, body text)`);
  });

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {});

  const open = async (): Promise<{ session: ConnectorSession; client: pg.Client }> => {
    const connector = new PostgresConnector('copy', { warn: () => undefined });
    const session = await connector.open(resolvedDatasource(db(), { id: '00000000-0000-4000-8000-00000000d15c' }), {
      connectTimeoutMs: 5_000,
    });
    sessions.push(session);
    return { session, client: (session as unknown as { client: pg.Client }).client };
  };

  const tablesOf = async (session: ConnectorSession): Promise<string[]> =>
    [...(await session.discover(['public'], new AbortController().signal)).tables.keys()].sort();

  const preparedNames = async (client: pg.Client): Promise<string[]> =>
    (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((row) => row.name);

  it('prepares the discovery once on a session and runs it again without parsing or planning it', async () => {
    const { session, client } = await open();
    expect(await tablesOf(session)).toEqual(['items', 'notes']);
    expect(await preparedNames(client)).toEqual(['fetcher_discovery_v1']);
    await db().query('CREATE TABLE later (id int PRIMARY KEY)');
    // A plan PostgreSQL keeps is still the catalog as it is now.
    expect(await tablesOf(session)).toEqual(['items', 'later', 'notes']);
    await db().query('DROP TABLE later');
    expect(session.reusable).toBe(true);
  });

  it('discovers unnamed from then on when the server no longer holds the statement, and the session stays reusable', async () => {
    const { session, client } = await open();
    expect(await tablesOf(session)).toEqual(['items', 'notes']);
    await client.query('DEALLOCATE fetcher_discovery_v1');
    expect(await tablesOf(session)).toEqual(['items', 'notes']);
    expect(await preparedNames(client)).toEqual([]);
    expect(await tablesOf(session)).toEqual(['items', 'notes']);
    expect(session.reusable).toBe(true);
  });

  it('discovers unnamed when the server already holds a statement of that name from someone else', async () => {
    const { session, client } = await open();
    // What a pooler's server connection would carry over from another client.
    await client.query('PREPARE fetcher_discovery_v1 AS SELECT 1');
    expect(await tablesOf(session)).toEqual(['items', 'notes']);
    expect(await tablesOf(session)).toEqual(['items', 'notes']);
    expect(session.reusable).toBe(true);
  });
});
