import { describe, expect, it } from 'vitest';
import type { ConnectorSession, ResolvedDatasource, SchemaSnapshot, TableInfo } from '../connectors/shared/engine-connector.js';
import { DatasourceConnectError } from '../errors/datasource-errors.js';
import { EgressRefusedError } from '../errors/engine-errors.js';
import { FetCode } from '../errors/fet-code.js';
import type { FetcherError } from '../errors/fetcher-error.js';
import { DEFAULT_CEILINGS, type Filters, type MappedFields } from '../request/data-request.js';
import type { DatasourceSessions } from '../sessions/datasource-sessions.js';
import { ExtractionPlanner } from './extraction-planner.js';
import { postgresDatasource } from '../testing/postgres-datasource.js';

const table = (schema: string, name: string, columns: string[]): TableInfo => ({
  schema,
  name,
  key: schema === 'public' ? name : `${schema}.${name}`,
  columns: columns.map((column) => ({ name: column, dataType: 'text' })),
  primaryKey: [columns[0]],
});

const CATALOG: readonly TableInfo[] = [
  table('public', 'accounts', ['id', 'email', 'balance']),
  table('accounting', 'invoices', ['id', 'amount']),
];

const datasource = (configName: string): ResolvedDatasource =>
  postgresDatasource({ id: `id-${configName}`, configName, host: `${configName}.example.com` });

/** How opening one datasource goes: a catalog to discover, or a failure of the open or of the discovery. */
type Behaviour = { readonly openFails?: unknown; readonly discoverFails?: unknown; readonly discoverWaits?: boolean };

/**
 * A planner over fake ports: every named datasource in `known` resolves, each session discovers
 * CATALOG (the namespaces asked for only), and every open, discovery and close is recorded.
 */
function harness(
  known: Record<string, Behaviour>,
  maxParallelDatasources = DEFAULT_CEILINGS.maxParallelDatasources,
  discoveryTimeoutMs = 15_000,
) {
  const log = { opened: [] as string[], discovered: [] as Array<[string, readonly string[] | null]>, closed: [] as string[], peak: 0 };
  let inFlight = 0;
  const sessions = {
    defaultSchema: () => 'public',
    canonicalName: () => (name: string) => name,
    // Nothing pooled here: every acquire opens.
    acquire: async (ds: ResolvedDatasource): Promise<ConnectorSession> => {
      const behaviour = known[ds.configName];
      inFlight += 1;
      log.peak = Math.max(log.peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      if (behaviour.openFails) throw behaviour.openFails;
      log.opened.push(ds.configName);
      return {
        async discover(schemas, signal): Promise<SchemaSnapshot> {
          log.discovered.push([ds.configName, schemas]);
          if (behaviour.discoverWaits) await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
          if (behaviour.discoverFails) throw behaviour.discoverFails;
          const wanted = CATALOG.filter((info) => schemas === null || schemas.includes(info.schema as string));
          return { tables: new Map(wanted.map((info) => [info.key, info])) };
        },
        readRows: () => (async function* () {})(),
        close: async () => void log.closed.push(ds.configName),
      };
    },
  } as unknown as DatasourceSessions;
  const limits = { ...DEFAULT_CEILINGS, maxParallelDatasources };
  const planner = {
    plan: (request: { mappedFields: MappedFields; filters: Filters | null }, signal: AbortSignal) =>
      new ExtractionPlanner(sessions).plan({
        request,
        datasources: new Map(
          Object.keys(request.mappedFields)
            .filter((name) => name in known)
            .map((name) => [name, datasource(name)]),
        ),
        limits,
        connectTimeoutMs: 15_000,
        discoveryTimeoutMs,
        discoveryMaxBytes: 1024 * 1024,
        signal,
      }),
  };
  return { planner, log };
}

const job = (mappedFields: MappedFields, filters: Filters | null = null) => ({ mappedFields, filters });

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('planning succeeded'),
    (error: unknown) => error,
  );

describe('ExtractionPlanner', () => {
  it('discovers only the namespaces a job names, once per datasource, and keeps the sessions open for the extraction', async () => {
    const { planner, log } = harness({ pg_b: {}, pg_a: {} });
    const plan = await planner.plan(
      job(
        { pg_b: { accounts: ['balance', 'id'] }, pg_a: { 'public.accounts': ['email'], accounts: ['id'], 'accounting.invoices': ['*'] } },
        { pg_a: { accounts: { id: { gt: [1] } } } },
      ),
      new AbortController().signal,
    );

    expect(plan.datasources.map((d) => d.configName)).toEqual(['pg_a', 'pg_b']);
    expect(log.discovered.sort()).toEqual([
      ['pg_a', ['accounting', 'public']],
      ['pg_b', ['public']],
    ]);
    const [a, b] = plan.datasources;
    expect(a.tables.map((t) => [t.table.key, t.columns.map((c) => c.name), t.filters])).toEqual([
      ['accounting.invoices', ['id', 'amount'], undefined],
      ['accounts', ['email', 'id'], { id: { gt: [1] } }],
    ]);
    expect(b.tables.map((t) => t.columns.map((c) => c.name))).toEqual([['balance', 'id']]);
    expect(log.closed).toEqual([]);
    expect(plan.limits).toEqual(DEFAULT_CEILINGS);
  });

  it('reports every unknown datasource, table, field and filter field together (FET-1060), and closes every session', async () => {
    const { planner, log } = harness({ pg_a: {}, pg_b: {} });
    const error = await failure(
      planner.plan(
        job(
          { pg_a: { accounts: ['id', 'emial'], ghosts: ['id'] }, pg_b: { 'accounting.invoices': ['total'] }, nowhere: { t: ['id'] } },
          { pg_a: { accounts: { nickname: { eq: ['x'] } } } },
        ),
        new AbortController().signal,
      ),
    );

    expect(error).toMatchObject({ code: FetCode.SchemaValidationFailed });
    expect((error as FetcherError).details).toEqual([
      { type: 'datasource_not_found', datasource: 'nowhere' },
      { type: 'field_not_found', datasource: 'pg_a', table: 'accounts', field: 'emial' },
      { type: 'invalid_filter', datasource: 'pg_a', table: 'accounts', field: 'nickname', message: "no column 'nickname' to filter on" },
      { type: 'table_not_found', datasource: 'pg_a', table: 'ghosts' },
      { type: 'field_not_found', datasource: 'pg_b', table: 'accounting.invoices', field: 'total' },
    ]);
    expect(log.closed.sort()).toEqual(['pg_a', 'pg_b']);
  });

  it('fails with FET-1020 when no datasource the job names exists, without connecting anywhere', async () => {
    const { planner, log } = harness({});
    const error = await failure(planner.plan(job({ ghost_a: { t: ['id'] }, ghost_b: { t: ['id'] } }), new AbortController().signal));
    expect(error).toMatchObject({
      code: FetCode.MissingDatasource,
      message: 'no connection configured for datasource(s): ghost_a, ghost_b',
    });
    expect(log.opened).toEqual([]);
  });

  it('fails with FET-1040 and the reason when a datasource cannot be reached, closing the sessions the others opened', async () => {
    const down = new DatasourceConnectError('pg_down', 'unreachable', "cannot connect to datasource 'pg_down': connection refused");
    const { planner, log } = harness({ pg_down: { openFails: down }, pg_up: {} });
    const error = await failure(
      planner.plan(job({ pg_down: { accounts: ['id'] }, pg_up: { accounts: ['id'] } }), new AbortController().signal),
    );

    expect(error).toMatchObject({
      code: FetCode.ConnectionDown,
      message: "datasource(s) unavailable: pg_down — cannot connect to datasource 'pg_down': connection refused",
      details: [{ type: 'datasource_unavailable', datasource: 'pg_down', reason: 'unreachable', message: down.message }],
    });
    expect(log.closed).toEqual(['pg_up']);
  });

  it('fails with the guard’s own code when the egress policy refuses a host', async () => {
    const refused = new EgressRefusedError("host of datasource 'pg_a' is not allowed");
    const { planner } = harness({ pg_a: { openFails: refused } });
    await expect(planner.plan(job({ pg_a: { accounts: ['id'] } }), new AbortController().signal)).rejects.toMatchObject({
      code: FetCode.ForbiddenHost,
      details: [{ type: 'datasource_unavailable', datasource: 'pg_a', message: refused.message }],
    });
  });

  it('reports a discovery that fails after connecting as FET-1040, and closes that session', async () => {
    const { planner, log } = harness({ pg_a: { discoverFails: new Error('permission denied for schema accounting') } });
    await expect(planner.plan(job({ pg_a: { accounts: ['id'] } }), new AbortController().signal)).rejects.toMatchObject({
      code: FetCode.ConnectionDown,
      details: [
        { type: 'datasource_unavailable', datasource: 'pg_a', message: 'schema discovery failed: permission denied for schema accounting' },
      ],
    });
    expect(log.closed).toEqual(['pg_a']);
  });

  it('rejects with the abort’s reason when the job is stopped during discovery, closing what was opened', async () => {
    const { planner, log } = harness({ pg_a: { discoverWaits: true }, pg_b: {} });
    const controller = new AbortController();
    const planning = planner.plan(job({ pg_a: { accounts: ['id'] }, pg_b: { accounts: ['id'] } }), controller.signal);
    const stopped = new Error('job deadline');
    setTimeout(() => controller.abort(stopped), 30);
    await expect(planning).rejects.toBe(stopped);
    expect(log.closed.sort()).toEqual(['pg_a', 'pg_b']);
  });

  it('opens at most maxParallelDatasources datasources at once', async () => {
    const names = ['a1', 'a2', 'a3', 'a4', 'a5'];
    const { planner, log } = harness(Object.fromEntries(names.map((name) => [name, {}])), 2);
    const plan = await planner.plan(
      job(Object.fromEntries(names.map((name) => [name, { accounts: ['id'] }]))),
      new AbortController().signal,
    );
    expect(plan.datasources).toHaveLength(5);
    expect(log.peak).toBe(2);
  });

  it('fails with FET-1043 when a datasource accepts the connection and never answers its discovery, closing its session', async () => {
    const { planner, log } = harness({ pg_a: { discoverWaits: true } }, 4, 50);
    const started = Date.now();
    await expect(planner.plan(job({ pg_a: { accounts: ['id'] } }), new AbortController().signal)).rejects.toMatchObject({
      code: FetCode.SchemaDiscoveryTimeout,
      message:
        "datasource(s) unavailable: pg_a — datasource 'pg_a' did not answer its schema discovery within 50 ms; the query was cancelled",
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(log.closed).toEqual(['pg_a']);
  });
});
