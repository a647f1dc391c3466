import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { type AppConfig } from './app-config.js';
import { DEFAULT_CATALOG_MAX_BYTES } from '../engine/connectors/shared/catalog-budget.js';
import { DEFAULT_CEILINGS } from '../engine/request/data-request.js';
import { DEFAULT_SESSION_POOL } from '../engine/sessions/session-pool.js';
import { decodeMasterKey as decodeMasterKeyText } from '../engine/crypto/key-text.js';
import { parseAuthConfig } from './auth.config.js';
import { EnvironmentVariables } from './environment.dto.js';
import { FetcherRole } from './fetcher-role.js';
import { parseHttpConfig } from './http.config.js';
import { parseInternalDatasources } from './internal-datasources.config.js';
import { parseMetricsConfig } from './metrics.config.js';
import { parseTrustProxy } from './trust-proxy.config.js';

/** Raised at boot; its message names every offending variable and is safe to print. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface LoadConfigOptions {
  /** Called when a development master key is generated, so the caller can warn. */
  readonly onGeneratedKey?: (path: string) => void;
  /** Whether stdout is a terminal (the default log format depends on it); default: process.stdout.isTTY. */
  readonly stdoutIsTTY?: boolean;
}

/** Validates the environment into one typed AppConfig, or throws a ConfigError naming the variables. */
export function loadAppConfig(env: NodeJS.ProcessEnv, options: LoadConfigOptions = {}): AppConfig {
  const relevant = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const vars = plainToInstance(EnvironmentVariables, relevant, { enableImplicitConversion: false });
  const errors = validateSync(vars, { whitelist: false, forbidUnknownValues: false, stopAtFirstError: true });
  if (errors.length > 0) throw new ConfigError(describe(errors, relevant));

  const internal = parseInternalDatasources(env);
  if (internal.problems.length > 0)
    throw new ConfigError(`Invalid configuration:\n${internal.problems.map((line) => `  ${line}`).join('\n')}`);

  const production = vars.NODE_ENV === 'production';
  const auth = parseAuthConfig(vars, production);
  if (auth.problems.length > 0) throw new ConfigError(`Invalid configuration:\n${auth.problems.map((line) => `  ${line}`).join('\n')}`);
  const http = parseHttpConfig(vars, auth.auth as NonNullable<typeof auth.auth>);
  if (http.problems.length > 0) throw new ConfigError(`Invalid configuration:\n${http.problems.map((line) => `  ${line}`).join('\n')}`);
  const dataDir = resolve(vars.DATA_DIR ?? './data');
  const encryption = resolveMasterKey(vars, production, dataDir, options);
  const keyring = parseKeyring(env, encryption.keyVersion, encryption.masterKey);

  const s3Configured = [vars.S3_ENDPOINT, vars.S3_BUCKET].filter(Boolean).length;
  if (s3Configured === 1) throw new ConfigError('S3_ENDPOINT and S3_BUCKET must be set together');
  if (vars.EVENTS_TRANSPORT === 'rmq' && !vars.EVENTS_URL)
    throw new ConfigError('Invalid configuration:\n  EVENTS_URL: is required when EVENTS_TRANSPORT=rmq');
  const role = vars.FETCHER_ROLE ?? FetcherRole.All;
  if (role !== FetcherRole.All && (!vars.DATABASE_URL || !vars.REDIS_URL)) {
    throw new ConfigError(
      `FETCHER_ROLE=${role} needs DATABASE_URL and REDIS_URL: separate manager and worker processes share jobs through PostgreSQL and Redis`,
    );
  }

  const metrics = parseMetricsConfig(vars, role);
  const trustProxy = parseTrustProxy(vars.TRUST_PROXY);
  const problems = [...metrics.problems, ...(trustProxy.problem === undefined ? [] : [trustProxy.problem])];
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`);

  return {
    role,
    production,
    version: vars.APP_VERSION ?? readPackageVersion(),
    http: { ...http.http, trustProxy: trustProxy.trustProxy },
    logLevel: vars.LOG_LEVEL ?? 'log',
    logFormat: resolveLogFormat(vars, production, options.stdoutIsTTY ?? Boolean(process.stdout.isTTY)),
    logFile: vars.LOG_FILE === undefined ? undefined : resolve(vars.LOG_FILE),
    dataDir,
    database: vars.DATABASE_URL
      ? { kind: 'postgres', url: vars.DATABASE_URL }
      : { kind: 'sqlite', path: resolve(vars.SQLITE_PATH ?? join(dataDir, 'fetcher.sqlite')) },
    redisUrl: vars.REDIS_URL,
    queuePrefix: vars.QUEUE_PREFIX ?? 'fetcher',
    storage: vars.S3_ENDPOINT
      ? {
          kind: 's3',
          s3: {
            endPoint: vars.S3_ENDPOINT,
            port: vars.S3_PORT,
            useSSL: vars.S3_USE_SSL ?? true,
            accessKey: vars.S3_ACCESS_KEY ?? '',
            secretKey: vars.S3_SECRET_KEY ?? '',
            bucket: vars.S3_BUCKET as string,
            region: vars.S3_REGION ?? 'us-east-1',
            keyPrefix: vars.S3_KEY_PREFIX ?? '',
            partSizeBytes: (vars.S3_PART_SIZE_MB ?? 8) * 1024 * 1024,
          },
        }
      : { kind: 'local', resultsDir: resolve(vars.RESULTS_DIR ?? join(dataDir, 'results')) },
    encryption: { ...encryption, keyring },
    auth: auth.auth as NonNullable<typeof auth.auth>,
    allowPlaintextPassword: vars.ALLOW_PLAINTEXT_PASSWORD ?? !production,
    postgresReadPath: (vars.POSTGRES_READ_PATH as 'copy' | 'cursor' | undefined) ?? 'copy',
    rateLimits: {
      jobSubmissionsPerPrincipalPerMinute: vars.JOB_SUBMIT_RATE_LIMIT ?? 300,
      connectionTestsPerPrincipalPerMinute: vars.CONNECTION_TEST_PRINCIPAL_RATE_LIMIT ?? 60,
      authFailuresPerClientPerMinute: vars.AUTH_FAILURE_LIMIT_PER_MINUTE ?? 60,
      schemaDiscoveriesPerPrincipalPerMinute: vars.SCHEMA_DISCOVERY_PRINCIPAL_RATE_LIMIT ?? 30,
    },
    connectionTests: {
      maxConcurrent: vars.CONNECTION_TEST_MAX_CONCURRENCY ?? 16,
      maxPerHost: vars.CONNECTION_TEST_MAX_PER_HOST ?? 4,
    },
    worker: {
      concurrency: vars.WORKER_CONCURRENCY ?? 5,
      shutdownGraceMs: vars.SHUTDOWN_GRACE_MS ?? 25_000,
      maxRssBytes: (vars.WORKER_MAX_RSS_MB ?? 1_024) * 1024 * 1024,
    },
    leases: {
      leaseMs: vars.JOB_LEASE_MS ?? 60_000,
      recoveryIntervalMs: vars.JOB_RECOVERY_INTERVAL_MS ?? 10_000,
      maxAttempts: vars.JOB_MAX_ATTEMPTS ?? 3,
    },
    events: {
      transport: (vars.EVENTS_TRANSPORT as 'none' | 'rmq' | undefined) ?? 'none',
      url: vars.EVENTS_URL,
      exchange: vars.EVENTS_EXCHANGE ?? 'fetcher.job.events',
      relayIntervalMs: vars.EVENTS_RELAY_INTERVAL_MS ?? 1_000,
    },
    webhooks: {
      pollIntervalMs: vars.WEBHOOK_POLL_INTERVAL_MS ?? 1_000,
      retryBaseMs: vars.WEBHOOK_RETRY_BASE_MS ?? 5_000,
      retryMaxMs: vars.WEBHOOK_RETRY_MAX_MS ?? 3_600_000,
      retryWindowMs: vars.WEBHOOK_RETRY_WINDOW_MS ?? 86_400_000,
      connectTimeoutMs: vars.WEBHOOK_CONNECT_TIMEOUT_MS ?? 5_000,
      responseTimeoutMs: vars.WEBHOOK_TIMEOUT_MS ?? 10_000,
      concurrency: vars.WEBHOOK_CONCURRENCY ?? 8,
    },
    jobs: {
      dedupWindowSeconds: vars.DEDUP_WINDOW_SECONDS ?? 300,
      connectionTestTimeoutMs: vars.CONNECTION_TEST_TIMEOUT_MS ?? 5_000,
    },
    results: {
      retentionSeconds: vars.RESULT_RETENTION_SECONDS ?? null,
      sweepIntervalMs: vars.RESULT_SWEEP_INTERVAL_MS ?? 60_000,
    },
    extraction: { ...DEFAULT_CEILINGS, maxResultBytes: vars.ENGINE_MAX_RESULT_BYTES ?? DEFAULT_CEILINGS.maxResultBytes },
    schemaCacheTtlSeconds: vars.SCHEMA_CACHE_TTL_SECONDS ?? 300,
    sourcePool: {
      maxIdlePerDatasource: vars.SOURCE_POOL_MAX_IDLE ?? DEFAULT_SESSION_POOL.maxIdlePerDatasource,
      idleMs: vars.SOURCE_POOL_IDLE_MS ?? DEFAULT_SESSION_POOL.idleMs,
    },
    schemaCache: {
      maxBytes: vars.SCHEMA_CACHE_MAX_BYTES ?? 32 * 1024 * 1024,
      maxEntryBytes: vars.SCHEMA_CACHE_MAX_ENTRY_BYTES ?? 4 * 1024 * 1024,
    },
    schemaDiscoveryTimeoutMs: vars.SCHEMA_DISCOVERY_TIMEOUT_MS ?? 15_000,
    schemaDiscoveryMaxBytes: vars.SCHEMA_DISCOVERY_MAX_BYTES ?? DEFAULT_CATALOG_MAX_BYTES,
    allowPrivateHosts: vars.ALLOW_PRIVATE_HOSTS ?? !production,
    internalDatasources: internal.datasources,
    connectionTestRateLimitPerMinute: vars.CONNECTION_TEST_RATE_LIMIT ?? 10,
    metrics: metrics.metrics,
    tracing: { otlpEndpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: vars.OTEL_SERVICE_NAME ?? `fetcher-${role}` },
  };
}

/** Pretty only for a person at a terminal: a file, a pipe or production gets JSON lines unless LOG_FORMAT says otherwise. */
function resolveLogFormat(vars: EnvironmentVariables, production: boolean, stdoutIsTTY: boolean): 'json' | 'pretty' {
  if (vars.LOG_FORMAT === 'json' || vars.LOG_FORMAT === 'pretty') return vars.LOG_FORMAT;
  return stdoutIsTTY && !production && vars.LOG_FILE === undefined ? 'pretty' : 'json';
}

function describe(errors: ValidationError[], env: Record<string, unknown>): string {
  const lines = errors.map((error) => {
    const reasons = Object.values(error.constraints ?? {}).map((reason) => reason.replace(`${error.property} `, ''));
    const shown = /KEY|SECRET|PASSWORD|URL|ENDPOINT/.test(error.property) ? '' : ` (got ${JSON.stringify(env[error.property])})`;
    return `  ${error.property}: ${reasons.join('; ')}${shown}`;
  });
  return `Invalid configuration:\n${lines.join('\n')}`;
}

/**
 * Every configured master key by version: the current one (APP_ENC_KEY, version
 * APP_ENC_KEY_VERSION) and older ones kept readable as APP_ENC_KEY_<version>.
 */
function parseKeyring(env: NodeJS.ProcessEnv, currentVersion: string, currentKey: Buffer): ReadonlyMap<string, Buffer> {
  const keyring = new Map<string, Buffer>([[currentVersion, currentKey]]);
  for (const [name, value] of Object.entries(env)) {
    const version = /^APP_ENC_KEY_(.+)$/.exec(name)?.[1];
    if (version === undefined || version === 'VERSION' || value === undefined || value.trim() === '') continue;
    if (!KEY_VERSION.test(version))
      throw new ConfigError(`${name}: the version after APP_ENC_KEY_ must be 1-32 characters of [A-Za-z0-9._-]`);
    const key = decodeMasterKey(value.trim(), name);
    if (version === currentVersion) {
      if (!key.equals(currentKey))
        throw new ConfigError(`${name}: differs from APP_ENC_KEY, which is version ${currentVersion}; remove one of them`);
      continue;
    }
    keyring.set(version, key);
  }
  return keyring;
}

const KEY_VERSION = /^[A-Za-z0-9._-]{1,32}$/;

function resolveMasterKey(
  vars: EnvironmentVariables,
  production: boolean,
  dataDir: string,
  options: LoadConfigOptions,
): Omit<AppConfig['encryption'], 'keyring'> {
  const keyVersion = vars.APP_ENC_KEY_VERSION ?? '1';
  if (vars.APP_ENC_KEY) return { masterKey: decodeMasterKey(vars.APP_ENC_KEY), keyVersion, generated: false };
  if (production) throw new ConfigError('APP_ENC_KEY: required when NODE_ENV=production (base64, at least 32 bytes)');

  const keyPath = join(dataDir, 'app-enc-key');
  if (!existsSync(keyPath)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(keyPath, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(keyPath, 0o600);
    options.onGeneratedKey?.(keyPath);
  }
  return { masterKey: decodeMasterKey(readFileSync(keyPath, 'utf8').trim()), keyVersion, generated: true };
}

function decodeMasterKey(text: string, variable = 'APP_ENC_KEY'): Buffer {
  try {
    return decodeMasterKeyText(text, variable);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

function readPackageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
