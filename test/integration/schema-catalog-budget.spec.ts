import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { FetCode } from '../../src/engine/errors/fet-code.js';
import { FetcherError } from '../../src/engine/errors/fetcher-error.js';
import { startFakePgCatalogServer, type FakePgCatalogServer } from '../helpers/fake-pg-catalog-server.js';
import { createTempMariaDatabase, type TempMariaDatabase } from '../helpers/mariadb-database.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

const MiB = 1024 * 1024;

/** 40 tables of 30 columns with long names: about 100 KiB of catalog on either server. */
const TABLES = Array.from({ length: 40 }, (_, t) => {
  const columns = Array.from({ length: 30 }, (_, c) => `a_rather_long_column_name_number_${c} int`).join(', ');
  return `CREATE TABLE a_rather_long_table_name_number_${t} (id int PRIMARY KEY, ${columns})`;
});

const failure = (attempt: Promise<unknown>) =>
  attempt.then(
    () => undefined,
    (error: unknown) => error,
  );

/**
 * The byte budget of a schema discovery (engine option discoveryMaxBytes, the service's
 * SCHEMA_DISCOVERY_MAX_BYTES), against a server that streams a catalog without end and against
 * real PostgreSQL and MariaDB catalogs that are larger than a small budget.
 */
describe('schema discovery byte budget', () => {
  describe('a PostgreSQL server that streams an endless catalog', () => {
    let server: FakePgCatalogServer;
    beforeAll(async () => {
      server = await startFakePgCatalogServer();
    });
    afterAll(async () => server?.close());

    it('fails discover() with FET-1044 once the budget is read, and closes the connection', async () => {
      const engine = createEngine({ discoveryMaxBytes: 2 * MiB, discoveryTimeoutMs: 15_000 });
      const started = Date.now();
      const error = await failure(engine.discover(`postgres://u:p@127.0.0.1:${server.port}/db`));
      expect(error).toBeInstanceOf(FetcherError);
      expect((error as FetcherError).code).toBe(FetCode.SchemaCatalogTooLarge);
      expect((error as FetcherError).message).toContain(`more than ${2 * MiB} bytes of schema catalog`);
      // Well before the 15 s deadline: the budget stopped it, not the clock.
      expect(Date.now() - started).toBeLessThan(10_000);
      await server.idle();
      expect(server.open).toBe(0);
      // What the server got to write is the budget plus what socket buffers held when the cut came.
      expect(server.catalogBytes).toBeLessThan(2 * MiB + 8 * MiB);
    });

    it('fails an extraction planned against it with FET-1044, nothing read', async () => {
      const engine = createEngine({ discoveryMaxBytes: 1 * MiB });
      const error = await failure(
        engine.extract({
          datasources: { fake: `postgres://u:p@127.0.0.1:${server.port}/db` },
          dataRequest: { mappedFields: { fake: { accounts: ['id'] } } },
        }),
      );
      expect((error as FetcherError).code).toBe(FetCode.SchemaCatalogTooLarge);
      await server.idle();
    });
  });

  describe('real catalogs over a small budget', () => {
    let pg: TempDatabase;
    let maria: TempMariaDatabase;
    beforeAll(async () => {
      [pg, maria] = await Promise.all([createTempDatabase('catalog_budget'), createTempMariaDatabase('catalog_budget')]);
      await pg.query(TABLES.join(';'));
      await maria.query(TABLES.join(';'));
    });
    afterAll(async () => {
      await Promise.all([pg?.drop(), maria?.drop()]);
    });

    const pgUrl = () => `postgres://${pg.user}@${pg.host}:${pg.port}/${pg.name}`;
    const mariaUrl = () => `mysql://${maria.user}:${encodeURIComponent(maria.password)}@${maria.host}:${maria.port}/${maria.name}`;

    it.each([
      ['PostgreSQL', pgUrl],
      ['MariaDB', mariaUrl],
    ])('%s: the whole catalog within the default budget, FET-1044 within 16 KiB', async (_engine, url) => {
      const whole = await createEngine().discover(url());
      expect(whole.tables).toHaveLength(40);
      expect(whole.tables[0].columns).toHaveLength(31);
      const error = await failure(createEngine({ discoveryMaxBytes: 16 * 1024 }).discover(url()));
      expect((error as FetcherError).code).toBe(FetCode.SchemaCatalogTooLarge);
      expect((error as FetcherError).status).toBe(502);
    });

    it('PostgreSQL: FET-1044 for a catalog that passes the budget in the one socket chunk that also completes it', async () => {
      await pg.query('CREATE SCHEMA tiny; CREATE TABLE tiny.one (id int PRIMARY KEY)');
      // A few hundred bytes of catalog: the driver gets all of it, end of answer included, in the chunk that passes 64 bytes.
      const error = await failure(createEngine({ discoveryMaxBytes: 64 }).discover(pgUrl(), ['tiny']));
      expect((error as FetcherError).code).toBe(FetCode.SchemaCatalogTooLarge);
    });

    it('PostgreSQL: the budget is per discovery, so a small namespace fits where the whole catalog does not', async () => {
      await pg.query('CREATE SCHEMA small; CREATE TABLE small.one (id int PRIMARY KEY)');
      const engine = createEngine({ discoveryMaxBytes: 16 * 1024 });
      const small = await engine.discover(pgUrl(), ['small']);
      expect(small.tables.map((table) => table.key)).toEqual(['small.one']);
    });
  });
});
