import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parsePrometheusText, samplesOf, valueOf } from '../../test/helpers/prometheus-text.js';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { SequentialIdGenerator } from '../common/clock/testing/sequential-id-generator.js';
import { type AppConfig } from '../config/app-config.js';
import { ConnectionTestSlots } from '../datasource/connection-test-slots.js';
import { ConnectionTester } from '../datasource/connection-tester.service.js';
import type { DatasourceResolver, RecordedDatasource } from '../datasource/datasource-resolver.service.js';
import type { ServiceDatasource } from '../datasource/service-datasource.js';
import { DatasourceType } from '../engine/connectors/datasource-type.js';
import type { ConnectorSession, ResolvedDatasource, RowBatch } from '../engine/connectors/shared/engine-connector.js';
import { EgressGuard } from '../engine/egress/egress-guard.js';
import { createEngine } from '../engine/engine.js';
import { DatasourceConnectError } from '../engine/errors/datasource-errors.js';
import { EgressRefusedError } from '../engine/errors/engine-errors.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { DEFAULT_CEILINGS } from '../engine/request/data-request.js';
import { openResultWithKeys } from '../engine/result/result-opener.js';
import { MemoryUpload } from '../engine/result/testing/memory-upload.js';
import { scriptedConnector, scriptedEngine, type ScriptedOpen } from '../engine/testing/scripted-engine.js';
import { UnroutableEventError, type EventPublisher } from '../events/event-publisher.port.js';
import { OutboxRelay } from '../events/outbox-relay.service.js';
import type { ClaimedEvent, OutboxRepository } from '../events/outbox.repository.js';
import type { StreamRepository } from '../stream/stream.repository.js';
import { ExtractionService } from '../extraction/extraction.service.js';
import type { MemoryGuard } from '../extraction/memory-guard.js';
import type { JobRecord } from '../job/job.entity.js';
import type { JobRepository } from '../job/job.repository.js';
import type { ResultStorageService } from '../storage/result-storage.service.js';
import { MetricsService } from './metrics.service.js';
import { TimerScheduler } from '../common/clock/scheduler.js';

const scrape = async (metrics: MetricsService) => parsePrometheusText(await metrics.registry.metrics());

const TABLE = { schema: null, name: 't', key: 't', columns: [{ name: 'id', dataType: 'int' }], primaryKey: ['id'] };

const session = (batches: RowBatch[]): ConnectorSession => ({
  discover: async () => ({ tables: new Map([['t', TABLE]]) }),
  close: async () => undefined,
  async *readRows() {
    yield* batches;
  },
});

const rows = (...ids: number[]): RowBatch => ({ json: Buffer.from(ids.map((id) => `{"id":${id}}`).join(',')), rowCount: ids.length });

const KEYS = { hmacKey: randomBytes(32), encryptionKey: randomBytes(32) };

/** A datasource of `type` named `configName`, on an address the egress policy takes. */
const datasourceOf = (configName: string, type: DatasourceType) =>
  ({
    id: configName,
    configName,
    type,
    host: `${configName}.example.com`,
    port: 1,
    databaseName: 'd',
    ssl: {},
    metadata: {},
    internal: false,
  }) as unknown as ServiceDatasource;

/**
 * An ExtractionService over the real engine: each datasource of `sources` reads its batches from
 * table `t`; `open` may be replaced per test. The result goes to a memory upload.
 */
function workerOver(
  metrics: MetricsService,
  clock: ManualClock,
  job: () => JobRecord,
  sources: Record<string, { type: DatasourceType; batches: RowBatch[] }>,
) {
  const open = vi.fn(async (datasource: ResolvedDatasource): Promise<ConnectorSession> => session(sources[datasource.configName].batches));
  const engine = createEngine({
    connectors: [DatasourceType.PostgreSQL, DatasourceType.MySQL].map((type) => scriptedConnector((ds) => open(ds), type)),
    egress: new EgressGuard({ allowPrivateHosts: false }, async () => ['93.184.216.34']),
  });
  const uploads: MemoryUpload[] = [];
  const storage = {
    stageResult: () => {
      const upload = new MemoryUpload();
      uploads.push(upload);
      return { path: 'p', keyVersion: '1', keys: KEYS, upload, publish: async () => undefined, abort: async () => undefined };
    },
  };
  const jobs = {
    // A claim hands over the job it locked.
    claim: async () => ({ ...job() }),
    findById: async () => ({ ...job() }),
    renewLease: async () => true,
    complete: async (_id: string, _claim: unknown, _result: unknown, _event: unknown, publish: () => Promise<void>) => (
      await publish(),
      true
    ),
    fail: async () => true,
    datasourcesOf: async () => Object.keys(job().mappedFields).map((configName) => ({ configName, connectionId: `id-${configName}` })),
  };
  const resolver = {
    resolveRecorded: async (recorded: readonly RecordedDatasource[]) =>
      new Map(recorded.map(({ configName }) => [configName, datasourceOf(configName, sources[configName].type)])),
  };
  const service = new ExtractionService(
    { leases: { leaseMs: 60_000 }, extraction: DEFAULT_CEILINGS } as AppConfig,
    jobs as unknown as JobRepository,
    resolver as unknown as DatasourceResolver,
    engine,
    storage as unknown as ResultStorageService,
    { check: () => undefined } as unknown as MemoryGuard,
    clock,
    new TimerScheduler(),
    new SequentialIdGenerator(),
    {} as StreamRepository,
    metrics,
  );
  return { service, open, plaintext: (index: number) => openResultWithKeys(uploads[index].body, KEYS).plaintext.toString() };
}

const jobOf = (configNames: string[], attempts = 1): JobRecord =>
  ({
    id: 'job-1',
    attempts,
    createdAt: new Date('2026-03-01T10:00:00.000Z'),
    startedAt: null,
    mappedFields: Object.fromEntries(configNames.map((name) => [name, { t: ['id'] }])),
    filters: null,
    limits: null,
  }) as unknown as JobRecord;

describe('what the extraction records', () => {
  it('counts rows and result bytes per engine; the bytes of the datasources add up to the result but for its braces and commas', async () => {
    const metrics = new MetricsService();
    const sources = {
      a_pg: { type: DatasourceType.PostgreSQL, batches: [rows(1, 2), rows(3)] },
      b_my: { type: DatasourceType.MySQL, batches: [rows(4)] },
      c_pg: { type: DatasourceType.PostgreSQL, batches: [] },
    };
    vi.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const worker = workerOver(metrics, new ManualClock(new Date('2026-03-01T10:00:05.000Z')), () => jobOf(Object.keys(sources)), sources);
    expect(await worker.service.process('job-1', new AbortController().signal)).toBe('completed');
    const text = worker.plaintext(0);
    const samples = await scrape(metrics);
    expect(valueOf(samples, 'fetcher_extracted_rows_total', { engine: 'postgresql' })).toBe(3);
    expect(valueOf(samples, 'fetcher_extracted_rows_total', { engine: 'mysql' })).toBe(1);
    expect(valueOf(samples, 'fetcher_extracted_bytes_total', { engine: 'mysql' })).toBe(Buffer.byteLength('"b_my":{"t":[{"id":4}]}'));
    const pgBytes = Buffer.byteLength('"a_pg":{"t":[{"id":1},{"id":2},{"id":3}]}') + Buffer.byteLength('"c_pg":{"t":[]}');
    expect(valueOf(samples, 'fetcher_extracted_bytes_total', { engine: 'postgresql' })).toBe(pgBytes);
    expect(valueOf(samples, 'fetcher_extracted_bytes_total')).toBe(Buffer.byteLength(text) - '{,,}'.length);
    vi.restoreAllMocks();
  });

  describe('ExtractionService', () => {
    const WORKER_PATTERN = /:00000001$/;
    let metrics: MetricsService;
    let job: JobRecord;
    let worker: ReturnType<typeof workerOver>;

    beforeEach(() => {
      for (const level of ['log', 'warn', 'error'] as const) vi.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
      metrics = new MetricsService();
      job = jobOf(['pg']);
      worker = workerOver(metrics, new ManualClock(new Date('2026-03-01T10:00:05.000Z')), () => job, {
        pg: { type: DatasourceType.PostgreSQL, batches: [rows(1)] },
      });
    });

    afterEach(() => vi.restoreAllMocks());

    const running = async () => samplesOf(await scrape(metrics), 'fetcher_jobs_running');
    const service = () => worker.service;
    const noSuchColumn = () => ({ ...session([]), discover: async () => ({ tables: new Map() }) });

    it('shows the worker with 0 running jobs from its start, 1 while it holds a claim, 0 again after', async () => {
      expect(await running()).toEqual([
        { name: 'fetcher_jobs_running', labels: { worker: expect.stringMatching(WORKER_PATTERN) }, value: 0 },
      ]);
      let release: () => void = () => undefined;
      worker.open.mockImplementationOnce(async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return noSuchColumn();
      });
      const processing = service().process(job.id, new AbortController().signal);
      await vi.waitFor(() => expect(worker.open).toHaveBeenCalled());
      expect((await running())[0].value).toBe(1);
      release();
      expect(await processing).toBe('failed');
      expect((await running())[0].value).toBe(0);
    });

    it('counts a failed job under its FET code, and a job’s wait in the queue from creation to its first claim', async () => {
      worker.open.mockImplementationOnce(async () => noSuchColumn());
      expect(await service().process(job.id, new AbortController().signal)).toBe('failed');
      expect(await service().process(job.id, new AbortController().signal)).toBe('completed');
      job = { ...job, attempts: 2 };
      expect(await service().process(job.id, new AbortController().signal)).toBe('completed');
      const samples = await scrape(metrics);
      expect(samplesOf(samples, 'fetcher_jobs_failed_total')).toEqual([
        { name: 'fetcher_jobs_failed_total', labels: { code: FetCode.SchemaValidationFailed }, value: 1 },
      ]);
      // Two first attempts waited 5 s each; the re-delivery is not a queue wait.
      expect(valueOf(samples, 'fetcher_job_queue_wait_seconds_count')).toBe(2);
      expect(valueOf(samples, 'fetcher_job_queue_wait_seconds_sum')).toBe(10);
      expect(valueOf(samples, 'fetcher_job_queue_wait_seconds_bucket', { le: '1' })).toBe(0);
      expect(valueOf(samples, 'fetcher_job_queue_wait_seconds_bucket', { le: '5' })).toBe(2);
      expect(valueOf(samples, 'fetcher_extracted_rows_total', { engine: 'postgresql' })).toBe(2);
    });
  });
});

describe('what connection tests record', () => {
  const datasource = datasourceOf('pg', DatasourceType.PostgreSQL);
  const config = { connectionTests: { maxConcurrent: 4, maxPerHost: 2 } } as AppConfig;

  it('counts each test by engine and outcome, failures by their reason, and refusals that throw', async () => {
    const metrics = new MetricsService();
    const open = vi
      .fn<ScriptedOpen>()
      .mockResolvedValueOnce(session([]))
      .mockRejectedValueOnce(new DatasourceConnectError('pg', 'auth_failed', 'password authentication failed'))
      .mockRejectedValueOnce(new EgressRefusedError('host refused'));
    const tester = new ConnectionTester(scriptedEngine(open), new ConnectionTestSlots(config), metrics);
    expect((await tester.test(datasource, 1_000)).ok).toBe(true);
    expect((await tester.test(datasource, 1_000)).ok).toBe(false);
    await expect(tester.test(datasource, 1_000)).rejects.toThrow('host refused');
    expect(samplesOf(await scrape(metrics), 'fetcher_connection_tests_total').map((sample) => [sample.labels, sample.value])).toEqual([
      [{ engine: 'postgresql', outcome: 'success' }, 1],
      [{ engine: 'postgresql', outcome: 'failure', reason: 'auth_failed' }, 1],
      [{ engine: 'postgresql', outcome: 'failure', reason: 'refused' }, 1],
    ]);
  });
});

describe('what the outbox relay records', () => {
  it('counts events published, and failures by reason: unroutable, broker away, store away', async () => {
    const metrics = new MetricsService();
    const event = (id: string, type: string): ClaimedEvent => ({ id, type, payload: {}, attempts: 0 });
    const claim = vi
      .fn()
      .mockResolvedValueOnce([event('1', 'job.completed'), event('2', 'job.failed'), event('3', 'job.failed'), event('4', 'job.completed')])
      .mockRejectedValueOnce(new Error('database is locked'));
    const outbox = { claim, markPublished: async () => undefined, markFailed: async () => undefined } as unknown as OutboxRepository;
    let publishes = 0;
    const publisher: EventPublisher = {
      kind: 'fake',
      async publish(sent) {
        publishes += 1;
        if (sent.type === 'job.failed') throw new UnroutableEventError(sent.id, sent.type, 'exchange "x"', '312 NO_ROUTE');
        if (publishes > 2) throw new Error('connect ECONNREFUSED');
      },
      ping: async () => undefined,
      close: async () => undefined,
    };
    vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const relay = new OutboxRelay(
      { events: { relayIntervalMs: 60_000 } } as AppConfig,
      outbox,
      publisher,
      undefined,
      undefined,
      undefined,
      metrics,
    );
    await relay.runOnce();
    await relay.runOnce();
    const samples = await scrape(metrics);
    expect(valueOf(samples, 'fetcher_outbox_events_published_total')).toBe(1);
    // Event 3 is held back behind event 2's refusal: not published, so not a failure of its own.
    expect(samplesOf(samples, 'fetcher_outbox_relay_failures_total').map((sample) => [sample.labels.reason, sample.value])).toEqual([
      ['unroutable', 1],
      ['broker_unavailable', 1],
      ['store_unavailable', 1],
    ]);
    vi.restoreAllMocks();
  });
});
