import type { ExtractionCeilings } from '../engine/request/data-request.js';
import { FetcherRole } from './fetcher-role.js';
import type { AuthConfig } from './auth.config.js';
import type { HttpConfig } from './http.config.js';
import type { InternalDatasourceConfig } from './internal-datasources.config.js';
import type { MetricsConfig } from './metrics.config.js';

export const APP_CONFIG = Symbol('APP_CONFIG');

export interface S3Config {
  readonly endPoint: string;
  readonly port?: number;
  readonly useSSL: boolean;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly bucket: string;
  readonly region: string;
  readonly keyPrefix: string;
  readonly partSizeBytes: number;
}

export type { ExtractionCeilings };

/** The whole configuration, validated once at boot. Nothing else reads process.env. */
export interface AppConfig {
  readonly role: FetcherRole;
  readonly production: boolean;
  readonly version: string;
  readonly http: HttpConfig;
  readonly logLevel: string;
  /** Resolved from LOG_FORMAT, the terminal and NODE_ENV at boot. */
  readonly logFormat: 'json' | 'pretty';
  /** LOG_FILE: lines are appended there instead of written to stdout. */
  readonly logFile?: string;
  readonly dataDir: string;
  readonly database: { readonly kind: 'postgres'; readonly url: string } | { readonly kind: 'sqlite'; readonly path: string };
  readonly redisUrl?: string;
  /** Redis key prefix of the BullMQ queue; lets several deployments share one Redis. */
  readonly queuePrefix: string;
  readonly storage: { readonly kind: 's3'; readonly s3: S3Config } | { readonly kind: 'local'; readonly resultsDir: string };
  readonly encryption: {
    /** The current master key (APP_ENC_KEY), whose version is `keyVersion`. */
    readonly masterKey: Buffer;
    readonly keyVersion: string;
    readonly generated: boolean;
    /** Every configured master key by version, the current one included. */
    readonly keyring: ReadonlyMap<string, Buffer>;
  };
  /** Who may call the API and how a caller proves it. */
  readonly auth: AuthConfig;
  /** Send a password to a server that asks for it in clear text over a connection without TLS. */
  readonly allowPlaintextPassword: boolean;
  /** How PostgreSQL rows are read: COPY with a cursor fallback, or always a cursor. */
  readonly postgresReadPath: 'copy' | 'cursor';
  /** Per-principal limits, shared by replicas through Redis. */
  readonly rateLimits: {
    readonly jobSubmissionsPerPrincipalPerMinute: number;
    readonly connectionTestsPerPrincipalPerMinute: number;
    /** Failed authentications per client address per minute before 429; 0: no limit (still counted and logged). */
    readonly authFailuresPerClientPerMinute: number;
    /** GET …/schema and validate-schema together. */
    readonly schemaDiscoveriesPerPrincipalPerMinute: number;
  };
  /** Caps on connection tests and live schema discoveries open at once in one process: in all, and against one address. */
  readonly connectionTests: { readonly maxConcurrent: number; readonly maxPerHost: number };
  readonly worker: {
    readonly concurrency: number;
    readonly shutdownGraceMs: number;
    /** 0: no memory guard. */
    readonly maxRssBytes: number;
  };
  /** Claims expire after leaseMs without renewal; the recovery loop re-queues them, failing a job after maxAttempts. */
  readonly leases: { readonly leaseMs: number; readonly recoveryIntervalMs: number; readonly maxAttempts: number };
  /** Terminal events: always written to the outbox; relayed to RabbitMQ when transport is rmq. */
  readonly events: {
    readonly transport: 'none' | 'rmq';
    readonly url?: string;
    readonly exchange: string;
    readonly relayIntervalMs: number;
  };
  /** Webhook deliveries (docs/webhooks.md): polling, retries with backoff until the window closes, deadlines. */
  readonly webhooks: {
    /** The pace only while a due delivery is held by another process; idle dispatchers sleep (see WebhookDispatcher). */
    readonly pollIntervalMs: number;
    readonly retryBaseMs: number;
    readonly retryMaxMs: number;
    readonly retryWindowMs: number;
    readonly connectTimeoutMs: number;
    readonly responseTimeoutMs: number;
    /** Deliveries in flight at once in one process (one per webhook at most). */
    readonly concurrency: number;
  };
  readonly jobs: { readonly dedupWindowSeconds: number; readonly connectionTestTimeoutMs: number };
  /** retentionSeconds null: results are kept until their product DELETEs them. */
  readonly results: { readonly retentionSeconds: number | null; readonly sweepIntervalMs: number };
  readonly extraction: ExtractionCeilings;
  readonly schemaCacheTtlSeconds: number;
  /** Source sessions kept for reuse (docs/operations.md, "Source session reuse"). */
  readonly sourcePool: { readonly maxIdlePerDatasource: number; readonly idleMs: number };
  /** Bytes of all schemas in the in-process cache; bytes of one schema, in memory and in Redis. */
  readonly schemaCache: { readonly maxBytes: number; readonly maxEntryBytes: number };
  readonly schemaDiscoveryTimeoutMs: number;
  /** Bytes of catalog one discovery may read (FET-1044 past them). */
  readonly schemaDiscoveryMaxBytes: number;
  readonly allowPrivateHosts: boolean;
  /** Datasources declared by DATASOURCE_<NAME>_* variables. */
  readonly internalDatasources: readonly InternalDatasourceConfig[];
  /** Calls of POST /connections/{id}/test allowed per connection per minute. */
  readonly connectionTestRateLimitPerMinute: number;
  /** /metrics: where it is served, who may scrape it, how often it reads the stores. */
  readonly metrics: MetricsConfig;
  /** Traces are exported over OTLP/HTTP when otlpEndpoint is set, and not even created otherwise. */
  readonly tracing: { readonly otlpEndpoint?: string; readonly serviceName: string };
}
