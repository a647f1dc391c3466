import { randomUUID } from 'node:crypto';
import { Client } from 'minio';
import { TEST_MASTER_KEY } from './fetcher-app.js';
import { pgConnectionBody } from './connection-bodies.js';
import { freePort, startFetcherProcess, type FetcherProcess } from './fetcher-process.js';
import { createTempDatabase, type TempDatabase } from './pg-database.js';
import { decodeStoredResult } from './result-decoder.js';
import { s3rverEnv, startS3rver, type S3rverHandle } from './s3rver.js';

export interface Transition {
  from_status: string | null;
  to_status: string;
  worker_id: string | null;
  reason: string | null;
}

export interface ClusterOptions {
  /** Extra environment for every process. */
  readonly env?: Record<string, string>;
  /** DATABASE_URL of the store per role, e.g. through a TCP proxy; default: the store directly. */
  readonly storeUrl?: (role: 'manager' | 'worker', direct: string) => string;
  /** Per-role environment overrides, applied last (e.g. a REDIS_URL or S3_PORT through a proxy). */
  readonly roleEnv?: (role: 'manager' | 'worker', s3Port: number) => Record<string, string>;
}

/**
 * A distributed deployment for fault tests: one PostgreSQL store, Redis (a private queue prefix),
 * an S3 server, a manager process and any number of worker processes built from dist/.
 */
export class Cluster {
  manager!: FetcherProcess;
  readonly workers: FetcherProcess[] = [];
  store!: TempDatabase;
  s3!: S3rverHandle;
  s3client!: Client;
  private env!: Record<string, string>;

  constructor(private readonly options: ClusterOptions = {}) {}

  async start(workerCount: number): Promise<this> {
    this.store = await createTempDatabase('cluster_store');
    this.s3 = await startS3rver({ bucket: 'fetcher-results' });
    this.s3client = new Client({
      endPoint: this.s3.endPoint,
      port: this.s3.port,
      useSSL: false,
      accessKey: this.s3.accessKey,
      secretKey: this.s3.secretKey,
      pathStyle: true,
    });
    this.env = {
      APP_ENC_KEY: TEST_MASTER_KEY,
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `fetcher-test-${randomUUID().slice(0, 8)}`,
      ...s3rverEnv(this.s3),
      S3_PART_SIZE_MB: '5',
      LOG_LEVEL: 'log',
      ...this.options.env,
    };
    this.manager = await this.startManager();
    for (let i = 0; i < workerCount; i += 1) await this.addWorker();
    return this;
  }

  private async startManager(): Promise<FetcherProcess> {
    const port = await freePort();
    const env = { ...this.env, FETCHER_ROLE: 'manager', PORT: String(port), DATABASE_URL: this.storeUrl('manager') };
    return startFetcherProcess({ ...env, ...this.options.roleEnv?.('manager', this.s3.port) }, port);
  }

  async addWorker(env: Record<string, string> = {}): Promise<FetcherProcess> {
    const port = await freePort();
    const worker = await startFetcherProcess(
      {
        ...this.env,
        FETCHER_ROLE: 'worker',
        WORKER_HTTP_PORT: String(port),
        DATABASE_URL: this.storeUrl('worker'),
        ...this.options.roleEnv?.('worker', this.s3.port),
        ...env,
      },
      port,
    );
    this.workers.push(worker);
    return worker;
  }

  /** Stops the manager and every worker gracefully, then starts a new manager and as many workers on the same store, queue and bucket. */
  async restart(): Promise<void> {
    const workers = this.workers.length;
    await Promise.all([this.manager.stop(10_000), ...this.workers.map((worker) => worker.stop(10_000))]);
    this.workers.length = 0;
    this.manager = await this.startManager();
    for (let i = 0; i < workers; i += 1) await this.addWorker();
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.manager?.stop(5_000), ...this.workers.map((worker) => worker.stop(5_000))]);
    await this.s3?.close();
    await this.store?.drop();
  }

  api(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.manager.url}${path}`, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
  }

  async registerPostgres(
    configName: string,
    db: { host: string; port: number; name: string; user: string },
    port = db.port,
  ): Promise<void> {
    const response = await this.api('/v1/management/connections', {
      method: 'POST',
      headers: { 'X-Product-Name': 'reporter' },
      body: JSON.stringify(pgConnectionBody(db, { configName, port })),
    });
    if (response.status !== 201) throw new Error(`register ${configName}: ${response.status} ${await response.text()}`);
  }

  async submit(mappedFields: object, extra: Record<string, unknown> = {}): Promise<string> {
    const response = await this.api('/v1/fetcher', {
      method: 'POST',
      body: JSON.stringify({ dataRequest: { mappedFields }, metadata: { source: 'reporter', correlationId: randomUUID(), ...extra } }),
    });
    if (response.status !== 202) throw new Error(`submit: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { jobId: string }).jobId;
  }

  async job(jobId: string): Promise<Record<string, any>> {
    return (await (await this.api(`/v1/fetcher/${jobId}`)).json()) as Record<string, any>;
  }

  async waitFor(jobId: string, done: (job: Record<string, any>) => boolean, timeoutMs = 60_000): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.job(jobId).catch(() => ({}) as Record<string, any>);
      if (done(job)) return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}\n${this.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  waitForTerminal(jobId: string, timeoutMs?: number) {
    return this.waitFor(jobId, (job) => job.status === 'completed' || job.status === 'failed', timeoutMs);
  }

  /** The job's status history as recorded with every transition. */
  async transitions(jobId: string): Promise<Transition[]> {
    return (
      await this.store.query<Transition>(
        'SELECT from_status, to_status, worker_id, reason FROM job_transitions WHERE job_id = $1 ORDER BY at, id',
        [jobId],
      )
    ).rows;
  }

  /** Every stored result object key (S3 prefix included). */
  async objectKeys(): Promise<string[]> {
    const keys: string[] = [];
    for await (const item of this.s3client.listObjectsV2(this.s3.bucket, '', true)) keys.push((item as { name: string }).name);
    return keys;
  }

  async readResult(resultPath: string): Promise<{ plaintext: string; hmac: string }> {
    const stream = await this.s3client.getObject(this.s3.bucket, resultPath);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return decodeStoredResult(Buffer.concat(chunks), TEST_MASTER_KEY);
  }

  logs(): string {
    return [
      `--- manager ---\n${this.manager?.output() ?? ''}`,
      ...this.workers.map((worker, i) => `--- worker ${i} (pid ${worker.child.pid}) ---\n${worker.output()}`),
    ].join('\n');
  }

  private storeUrl(role: 'manager' | 'worker'): string {
    return this.options.storeUrl ? this.options.storeUrl(role, this.store.url) : this.store.url;
  }
}
