import type { SchemaCache } from './cache/schema-cache.js';
import { DEFAULT_CATALOG_MAX_BYTES } from './connectors/shared/catalog-budget.js';
import type { PostgresReadPath } from './connectors/postgres/postgres.connector.js';
import type { EngineConnector } from './connectors/shared/engine-connector.js';
import type { AddressResolver } from './egress/address-resolver.js';
import { EgressGuard } from './egress/egress-guard.js';
import { EngineOptionsError } from './errors/engine-errors.js';
import { DEFAULT_CEILINGS, type ExtractionCeilings } from './request/data-request.js';
import type { EngineLogger } from './support/engine-logger.js';
import type { EngineTracer } from './tracing/engine-tracer.js';
import { DEFAULT_SESSION_POOL, type SessionPoolOptions } from './sessions/session-pool.js';

export interface EgressOptions {
  /**
   * Loopback and private networks may be reached. Default true for a library (the caller owns the
   * process and its network); cloud metadata, link-local and reserved addresses are refused always.
   */
  readonly allowPrivateHosts?: boolean;
  /** How host names are resolved before the check; default the system resolver. */
  readonly resolver?: AddressResolver;
}

export interface EngineOptions {
  /** Only lower: each at most the default (docs/request-limits.md); a request's own `limits` lower them again. */
  readonly limits?: Partial<ExtractionCeilings>;
  /** Where the engine may connect (docs/security.md, "Egress"); an EgressGuard of the caller's own replaces the policy. */
  readonly egress?: EgressOptions | EgressGuard;
  /** Send a password to a server that asks for it in clear text over a connection without TLS. Default true. */
  readonly allowPlaintextPassword?: boolean;
  /** `copy` (default): PostgreSQL rows through COPY with a cursor fallback; `cursor`: always a cursor. */
  readonly postgresReadPath?: PostgresReadPath;
  /** Each connect during an extraction or a discovery. Default 15 s. */
  readonly connectTimeoutMs?: number;
  /** Each datasource's schema discovery. Default 15 s. */
  readonly discoveryTimeoutMs?: number;
  /**
   * Bytes of catalog each discovery may read from the server (counted as they arrive); past them
   * the discovery fails with FET-1044 and its connection is closed. Default 4 MiB.
   */
  readonly discoveryMaxBytes?: number;
  /** `test()`, connect included. Default 10 s. */
  readonly testTimeoutMs?: number;
  readonly logger?: EngineLogger;
  /** Read through by `discover()`; extraction always discovers live. */
  readonly schemaCache?: SchemaCache;
  /** How long a discovered schema stays in `schemaCache`. Default 300 s. */
  readonly schemaCacheTtlSeconds?: number;
  readonly tracer?: EngineTracer;
  /** The engines it can connect to; default every built-in one (defaultConnectors()). */
  readonly connectors?: readonly EngineConnector[];
  /**
   * Keep sessions of datasources that carry a `reuseScope` for the next extraction, test or
   * discovery of the same datasource (docs/engine.md, "Session reuse"). Absent: every open
   * connects afresh; call `close()` when done with an engine that pools.
   */
  readonly sessionPool?: SessionPoolOptions;
}

export interface ResolvedEngineOptions {
  readonly limits: ExtractionCeilings;
  readonly guard: EgressGuard;
  readonly allowPlaintextPassword: boolean;
  readonly connectTimeoutMs: number;
  readonly discoveryTimeoutMs: number;
  readonly discoveryMaxBytes: number;
  readonly testTimeoutMs: number;
  readonly schemaCacheTtlSeconds: number;
  readonly sessionPool?: SessionPoolOptions;
}

const LIMIT_NAMES = Object.keys(DEFAULT_CEILINGS) as (keyof ExtractionCeilings)[];

/** The options with their defaults, or EngineOptionsError naming the first one that cannot be honoured. */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  const limits = { ...DEFAULT_CEILINGS };
  for (const [name, value] of Object.entries(options.limits ?? {})) {
    if (!(LIMIT_NAMES as string[]).includes(name)) throw optionError(`limits.${name}`, `is not a limit (${LIMIT_NAMES.join(', ')})`);
    if (value === undefined) continue;
    const ceiling = DEFAULT_CEILINGS[name as keyof ExtractionCeilings];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > ceiling)
      throw optionError(`limits.${name}`, `must be an integer from 1 to ${ceiling}`);
    limits[name as keyof ExtractionCeilings] = value;
  }
  const egress = options.egress;
  const guard =
    egress instanceof EgressGuard ? egress : new EgressGuard({ allowPrivateHosts: egress?.allowPrivateHosts ?? true }, egress?.resolver);
  return {
    limits,
    guard,
    allowPlaintextPassword: options.allowPlaintextPassword ?? true,
    connectTimeoutMs: positive(options.connectTimeoutMs, 15_000, 'connectTimeoutMs'),
    discoveryTimeoutMs: positive(options.discoveryTimeoutMs, 15_000, 'discoveryTimeoutMs'),
    discoveryMaxBytes: positive(options.discoveryMaxBytes, DEFAULT_CATALOG_MAX_BYTES, 'discoveryMaxBytes'),
    testTimeoutMs: positive(options.testTimeoutMs, 10_000, 'testTimeoutMs'),
    schemaCacheTtlSeconds: positive(options.schemaCacheTtlSeconds, 300, 'schemaCacheTtlSeconds', 0),
    ...(options.sessionPool === undefined
      ? {}
      : {
          sessionPool: {
            maxIdlePerDatasource: positive(
              options.sessionPool.maxIdlePerDatasource,
              DEFAULT_SESSION_POOL.maxIdlePerDatasource,
              'sessionPool.maxIdlePerDatasource',
              0,
            ),
            idleMs: positive(options.sessionPool.idleMs, DEFAULT_SESSION_POOL.idleMs, 'sessionPool.idleMs'),
          },
        }),
  };
}

function positive(value: number | undefined, fallback: number, name: string, minimum = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < minimum) throw optionError(name, `must be an integer of at least ${minimum}`);
  return value;
}

function optionError(option: string, problem: string): EngineOptionsError {
  return new EngineOptionsError(`createEngine: ${option} ${problem}`, { fields: { [option]: problem } });
}
