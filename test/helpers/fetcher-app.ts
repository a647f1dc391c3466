import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';
import { AppModule } from '../../src/app.module.js';
import { configureFetcherApp, createFetcherApp } from '../../src/bootstrap/create-app.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { testLogEnv } from './test-log-file.js';
import { pgConnectionBody, type PgTarget } from './connection-bodies.js';
import { TEST_SECRETS } from './test-secrets.js';

export type { PgTarget } from './connection-bodies.js';

/** 32 bytes of 0x2a in base64. */
export const TEST_MASTER_KEY = TEST_SECRETS.TEST_MASTER_KEY;

export interface EmbeddedFetcher {
  readonly app: INestApplication;
  readonly http: TestAgent;
  readonly config: AppConfig;
  readonly dataDir: string;
  close(): Promise<void>;
}

export interface EmbeddedFetcherOptions {
  /** Boot on this data directory (e.g. a restart on the same SQLite store); it is then left in place on close. */
  readonly dataDir?: string;
  /** Replace providers of the real graph, e.g. the DNS resolver: `[[ADDRESS_RESOLVER, fake]]`. */
  readonly overrides?: ReadonlyArray<readonly [token: unknown, value: unknown]>;
}

/**
 * Boots Fetcher in-process in role `all` with the embedded defaults (SQLite, in-process queue,
 * local results) in a fresh temporary data directory. `env` overrides any variable.
 */
export async function startEmbeddedFetcher(
  env: Record<string, string> = {},
  options: EmbeddedFetcherOptions = {},
): Promise<EmbeddedFetcher> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'fetcher-test-'));
  const config = loadAppConfig({ DATA_DIR: dataDir, APP_ENC_KEY: TEST_MASTER_KEY, NODE_ENV: 'test', ...testLogEnv('error'), ...env });
  let app: INestApplication;
  if (options.overrides && options.overrides.length > 0) {
    let builder = Test.createTestingModule({ imports: [AppModule.forRoot(config)] });
    for (const [token, value] of options.overrides) builder = builder.overrideProvider(token as string).useValue(value);
    const moduleRef = await builder.compile();
    // The application's pino logger takes over from Nest's testing logger in configureFetcherApp.
    app = configureFetcherApp(moduleRef.createNestApplication<NestExpressApplication>({ bufferLogs: true, bodyParser: false }), config);
  } else {
    app = await createFetcherApp(config);
  }
  await app.init();
  const http = request(app.getHttpServer());
  return {
    app,
    http,
    config,
    dataDir,
    async close() {
      await app.close();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface JobView {
  id: string;
  status: string;
  resultPath?: string;
  resultHmac?: string;
  result?: { sizeBytes: number; rowCount: number; sha256: string; rowCounts: Record<string, Record<string, number>> };
  error?: { code: string; message: string; details?: Array<Record<string, string>> };
  [key: string]: unknown;
}

/** Polls GET /v1/fetcher/{id} until the job is completed or failed. */
export async function waitForJob(http: TestAgent, jobId: string, timeoutMs = 30_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await http.get(`/v1/fetcher/${jobId}`);
    if (response.status !== 200) throw new Error(`GET job ${jobId}: ${response.status} ${JSON.stringify(response.body)}`);
    const job = response.body as JobView;
    if (job.status === 'completed' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Registers a PostgreSQL connection through the API and returns its response body. */
export async function registerPostgres(
  http: TestAgent,
  db: PgTarget,
  options: { configName: string; product: string; schema?: string; port?: number; host?: string },
): Promise<{ id: string; configName: string }> {
  const response = await http
    .post('/v1/management/connections')
    .set('X-Product-Name', options.product)
    .send(
      pgConnectionBody(db, {
        configName: options.configName,
        host: options.host ?? db.host,
        port: options.port ?? db.port,
        ...(options.schema ? { schema: options.schema } : {}),
      }),
    );
  if (response.status !== 201) throw new Error(`create connection: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; configName: string };
}

/** Registers a MariaDB (MySQL engine) connection through the API and returns its response body. */
export async function registerMariaDb(
  http: TestAgent,
  db: { readonly name: string; readonly host: string; readonly port: number; readonly user: string; readonly password: string },
  options: { configName: string; product: string },
): Promise<{ id: string; configName: string }> {
  const response = await http.post('/v1/management/connections').set('X-Product-Name', options.product).send({
    configName: options.configName,
    type: 'MYSQL',
    host: db.host,
    port: db.port,
    databaseName: db.name,
    userName: db.user,
    password: db.password,
  });
  if (response.status !== 201) throw new Error(`create connection: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; configName: string };
}
