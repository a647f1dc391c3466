import 'reflect-metadata';
import { applyDecorators } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsEnum, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { FetcherRole } from './fetcher-role.js';

export const MAX_RESULT_BYTES_CEILING = 256 * 1024 * 1024;

/** A whole number in [min, max]; one message whatever rule fails, so "abc" is not called "too large". */
function IntRange(min: number, max = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  const message = max === Number.MAX_SAFE_INTEGER ? `must be an integer of at least ${min}` : `must be an integer from ${min} to ${max}`;
  return applyDecorators(
    Type(() => Number),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  );
}

const toBoolean = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  const text = String(value).trim().toLowerCase();
  if (['true', '1', 'yes'].includes(text)) return true;
  if (['false', '0', 'no'].includes(text)) return false;
  return value;
};

/**
 * Every environment variable Fetcher reads, with its rule. `.env.example` documents the same list.
 * Unset variables take the defaults applied in `buildAppConfig`.
 */
export class EnvironmentVariables {
  @IsOptional()
  @IsEnum(FetcherRole, { message: 'must be one of manager, worker, all' })
  FETCHER_ROLE?: FetcherRole;

  @IsOptional()
  @IsIn(['development', 'production', 'test'], { message: 'must be one of development, production, test' })
  NODE_ENV?: string;

  @IsOptional()
  @IntRange(1, 65535)
  PORT?: number;

  @IsOptional()
  @IntRange(1, 65535)
  WORKER_HTTP_PORT?: number;

  /** Listen address; default 127.0.0.1 with AUTH_MODE=none, 0.0.0.0 otherwise. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  HOST?: string;

  /** With AUTH_MODE=none, a HOST other than loopback is refused at boot unless this is true. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  ALLOW_UNAUTHENTICATED_NETWORK?: boolean;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'log', 'debug', 'verbose'], {
    message: 'must be one of fatal, error, warn, log, debug, verbose',
  })
  LOG_LEVEL?: string;

  /** `json` (one object per line) or `pretty` (for a person at a terminal); default: pretty on a TTY outside production. */
  @IsOptional()
  @IsIn(['json', 'pretty'], { message: 'must be one of json, pretty' })
  LOG_FORMAT?: string;

  /** A file the log lines are appended to instead of stdout (JSON unless LOG_FORMAT says otherwise). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  LOG_FILE?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  DATA_DIR?: string;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  SQLITE_PATH?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be 1-64 characters of [A-Za-z0-9_-]' })
  QUEUE_PREFIX?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  S3_ENDPOINT?: string;

  @IsOptional()
  @IntRange(1, 65535)
  S3_PORT?: number;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  S3_USE_SSL?: boolean;

  @IsOptional()
  @IsString()
  S3_ACCESS_KEY?: string;

  @IsOptional()
  @IsString()
  S3_SECRET_KEY?: string;

  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'must be a valid bucket name' })
  S3_BUCKET?: string;

  @IsOptional()
  @IsString()
  S3_REGION?: string;

  @IsOptional()
  @IsString()
  @MaxLength(512)
  S3_KEY_PREFIX?: string;

  @IsOptional()
  @IntRange(5, 512)
  S3_PART_SIZE_MB?: number;

  @IsOptional()
  @IsString()
  @MinLength(1)
  RESULTS_DIR?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  APP_ENC_KEY?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,32}$/, { message: 'must be 1-32 characters of [A-Za-z0-9._-]' })
  APP_ENC_KEY_VERSION?: string;

  @IsOptional()
  @IntRange(1, 100)
  WORKER_CONCURRENCY?: number;

  /** Can only lower the 256 MiB ceiling. */
  @IsOptional()
  @IntRange(1, MAX_RESULT_BYTES_CEILING)
  ENGINE_MAX_RESULT_BYTES?: number;

  @IsOptional()
  @IntRange(0)
  DEDUP_WINDOW_SECONDS?: number;

  /** Completed results older than this are deleted by the retention sweep; unset keeps them. */
  @IsOptional()
  @IntRange(1)
  RESULT_RETENTION_SECONDS?: number;

  /** How often the retention sweep runs (it also finishes deletions a crash interrupted). */
  @IsOptional()
  @IntRange(1_000, 86_400_000)
  RESULT_SWEEP_INTERVAL_MS?: number;

  @IsOptional()
  @IntRange(0)
  SCHEMA_CACHE_TTL_SECONDS?: number;

  /** Idle source sessions kept per connection (and product and version) for the next job or test; 0: every one connects afresh. */
  @IsOptional()
  @IntRange(0, 64)
  SOURCE_POOL_MAX_IDLE?: number;

  /** An idle pooled source session older than this is closed. */
  @IsOptional()
  @IntRange(1_000, 3_600_000)
  SOURCE_POOL_IDLE_MS?: number;

  /** Deadline of one live discovery for GET /schema and validate-schema (connect included). */
  @IsOptional()
  @IntRange(500, 300_000)
  SCHEMA_DISCOVERY_TIMEOUT_MS?: number;

  /** Bytes of catalog one schema discovery may read from the server; past them FET-1044 and the connection is closed. */
  @IsOptional()
  @IntRange(65_536, 1_073_741_824)
  SCHEMA_DISCOVERY_MAX_BYTES?: number;

  /** GET /schema and validate-schema calls allowed per principal per minute. */
  @IsOptional()
  @IntRange(1, 1_000_000)
  SCHEMA_DISCOVERY_PRINCIPAL_RATE_LIMIT?: number;

  /** Bytes all schemas in the in-process schema cache may take (used when there is no Redis). */
  @IsOptional()
  @IntRange(0, 1_073_741_824)
  SCHEMA_CACHE_MAX_BYTES?: number;

  /** Bytes one cached schema may take, in memory and in Redis; a larger one is not cached. */
  @IsOptional()
  @IntRange(0, 536_870_912)
  SCHEMA_CACHE_MAX_ENTRY_BYTES?: number;

  @IsOptional()
  @IntRange(100, 60_000)
  CONNECTION_TEST_TIMEOUT_MS?: number;

  @IsOptional()
  @IntRange(0, 600_000)
  SHUTDOWN_GRACE_MS?: number;

  /** Resident memory (MiB) above which a worker takes no new job and fails the one that crossed it; 0 turns the guard off. */
  @IsOptional()
  @IntRange(0, 1_048_576)
  WORKER_MAX_RSS_MB?: number;

  @IsOptional()
  @IntRange(1_000, 3_600_000)
  JOB_LEASE_MS?: number;

  @IsOptional()
  @IntRange(100, 3_600_000)
  JOB_RECOVERY_INTERVAL_MS?: number;

  @IsOptional()
  @IntRange(1, 100)
  JOB_MAX_ATTEMPTS?: number;

  @IsOptional()
  @IsIn(['none', 'rmq'], { message: 'must be one of none, rmq' })
  EVENTS_TRANSPORT?: string;

  @IsOptional()
  @Matches(/^amqps?:\/\/.+/, { message: 'must be an amqp:// or amqps:// URL' })
  EVENTS_URL?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_.:-]{1,255}$/, { message: 'must be 1-255 characters of [A-Za-z0-9_.:-]' })
  EVENTS_EXCHANGE?: string;

  @IsOptional()
  @IntRange(50, 600_000)
  EVENTS_RELAY_INTERVAL_MS?: number;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  ALLOW_PRIVATE_HOSTS?: boolean;

  @IsOptional()
  @IntRange(10, 600_000)
  WEBHOOK_POLL_INTERVAL_MS?: number;

  @IsOptional()
  @IntRange(1, 3_600_000)
  WEBHOOK_RETRY_BASE_MS?: number;

  @IsOptional()
  @IntRange(1, 86_400_000)
  WEBHOOK_RETRY_MAX_MS?: number;

  @IsOptional()
  @IntRange(1, 30 * 86_400_000)
  WEBHOOK_RETRY_WINDOW_MS?: number;

  @IsOptional()
  @IntRange(100, 120_000)
  WEBHOOK_CONNECT_TIMEOUT_MS?: number;

  @IsOptional()
  @IntRange(100, 300_000)
  WEBHOOK_TIMEOUT_MS?: number;

  @IsOptional()
  @IntRange(1, 256)
  WEBHOOK_CONCURRENCY?: number;

  @IsOptional()
  @IntRange(1, 10_000)
  CONNECTION_TEST_RATE_LIMIT?: number;

  @IsOptional()
  @IsString()
  APP_VERSION?: string;

  @IsOptional()
  @IsIn(['none', 'apikey', 'jwt'], { message: 'must be one of none, apikey, jwt' })
  AUTH_MODE?: string;

  /** Comma-separated operator keys (AUTH_MODE=apikey). */
  @IsOptional()
  @IsString()
  AUTH_ADMIN_KEYS?: string;

  @IsOptional()
  @Matches(/^https?:\/\/.+/, { message: 'must be an http:// or https:// URL' })
  AUTH_JWKS_URL?: string;

  /** PEM (SPKI) public key; `\n` escapes are accepted so it fits on one line of a .env file. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  AUTH_JWT_PUBLIC_KEY?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  AUTH_JWT_ISSUER?: string;

  /** One audience, or several separated by commas. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  AUTH_JWT_AUDIENCE?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_:/.#-]{1,200}$/, { message: 'must be a claim name (a dotted path reads a nested claim)' })
  AUTH_JWT_PRODUCTS_CLAIM?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_:/.#-]{1,200}$/, { message: 'must be a claim name (a dotted path reads a nested claim)' })
  AUTH_JWT_ROLES_CLAIM?: string;

  @IsOptional()
  @IntRange(0, 300)
  AUTH_JWT_CLOCK_TOLERANCE_SECONDS?: number;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  ALLOW_PLAINTEXT_PASSWORD?: boolean;

  /** `copy` (default): PostgreSQL rows through COPY, a cursor where a server refuses it; `cursor`: always a cursor. */
  @IsOptional()
  @IsIn(['copy', 'cursor'], { message: 'must be one of copy, cursor' })
  POSTGRES_READ_PATH?: string;

  /** POST /v1/fetcher calls allowed per principal per minute. */
  @IsOptional()
  @IntRange(1, 1_000_000)
  JOB_SUBMIT_RATE_LIMIT?: number;

  /** POST /connections/{id}/test calls allowed per principal per minute (on top of the per-connection limit). */
  @IsOptional()
  @IntRange(1, 1_000_000)
  CONNECTION_TEST_PRINCIPAL_RATE_LIMIT?: number;

  /** Failed authentications allowed per client address per minute before it is answered 429; 0: no limit. */
  @IsOptional()
  @IntRange(0, 1_000_000)
  AUTH_FAILURE_LIMIT_PER_MINUTE?: number;

  /** Which X-Forwarded-For entries name the client: a hop count or the proxies' addresses (trust-proxy.config.ts). */
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  /** Connection tests (the /test route and job submission) open at once in this process. */
  @IsOptional()
  @IntRange(1, 1_000)
  CONNECTION_TEST_MAX_CONCURRENCY?: number;

  /** Connection tests open at once in this process against one host. */
  @IsOptional()
  @IntRange(1, 1_000)
  CONNECTION_TEST_MAX_PER_HOST?: number;

  /** OTLP/HTTP base URL of a trace collector (spans go to `<url>/v1/traces`); unset: no traces. */
  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true },
    { message: 'must be an http:// or https:// URL' },
  )
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** `service.name` of the exported spans; default `fetcher-<role>`. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  OTEL_SERVICE_NAME?: string;

  /** Seconds one read of the store-wide gauges (jobs by status, queue depth, outbox backlog) answers /metrics; 0: every scrape reads. */
  @IsOptional()
  @IntRange(0, 3_600)
  METRICS_STORE_REFRESH_SECONDS?: number;

  /** Serve /metrics on this port of its own, and no longer on the API port. */
  @IsOptional()
  @IntRange(1, 65535)
  METRICS_PORT?: number;

  /** Listen address of METRICS_PORT; default: that of HOST. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  METRICS_HOST?: string;

  /** `public` (default): anyone may scrape /metrics on the API port; `operator`: an operator credential is needed. */
  @IsOptional()
  @IsIn(['public', 'operator'], { message: 'must be one of public, operator' })
  METRICS_ACCESS?: string;
}
