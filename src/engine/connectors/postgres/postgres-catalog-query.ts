import pg from 'pg';
import { DISCOVERY_SQL, type DiscoveryRow } from './postgres-discovery.js';

/**
 * The discovery as a named prepared statement: PostgreSQL parses and plans it once per connection
 * instead of at every job (planning the catalog query cost the server about 2 ms a time, more than
 * running it), and a pooled session keeps it from job to job.
 */
const DISCOVERY_STATEMENT = 'fetcher_discovery_v1';

/**
 * A name the server does not hold (26000), or holds already (42P05): a pooler between us and the
 * database (PgBouncer in transaction mode without prepared-statement support) that hands each
 * statement another server connection.
 */
const PREPARED_STATEMENT_REFUSALS = new Set(['26000', '42P05']);

/** One session's discovery query: prepared while the server keeps it, unnamed once it did not. */
export class CatalogQuery {
  private prepared = true;

  constructor(private readonly client: pg.Client) {}

  /** Streams the catalog rows of `names` (every schema when null) to `onRow`; pg keeps none of them. */
  async stream(names: string[] | null, onRow: (row: DiscoveryRow) => void): Promise<void> {
    if (!this.prepared) return this.run(undefined, names, onRow);
    try {
      await this.run(DISCOVERY_STATEMENT, names, onRow);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code !== 'string' || !PREPARED_STATEMENT_REFUSALS.has(code)) throw error;
      // Refused at Bind, before any row: the same discovery, unnamed, for this session from now on.
      this.prepared = false;
      await this.run(undefined, names, onRow);
    }
  }

  private run(name: string | undefined, names: string[] | null, onRow: (row: DiscoveryRow) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      // With a row listener and no callback, pg keeps none of the rows itself.
      const config: pg.QueryArrayConfig = { name, text: DISCOVERY_SQL, values: [names], rowMode: 'array' };
      const query = new pg.Query<(string | null)[]>(config);
      query.on('row', (row: (string | null)[]) => onRow(row));
      query.on('error', reject);
      query.on('end', () => resolve());
      void this.client.query(query);
    });
  }
}
