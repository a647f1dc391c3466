import type { EnvironmentVariables } from './environment.dto.js';
import { FetcherRole } from './fetcher-role.js';

/** Who may scrape /metrics on the API port: anyone, or an operator credential. */
export type MetricsAccess = 'public' | 'operator';

export interface MetricsConfig {
  /** How long one read of the store-wide gauges answers the scrapes that follow it. */
  readonly storeRefreshMs: number;
  /** Serve /metrics on this port of its own (and not on the API port); unset: on the API port. */
  readonly port?: number;
  /** Listen address of that port; unset: the address of HOST. */
  readonly host?: string;
  readonly access: MetricsAccess;
}

/**
 * The metrics section of the configuration. Returns the problems (each naming its variable)
 * instead of throwing, so the caller reports them with the rest.
 */
export function parseMetricsConfig(vars: EnvironmentVariables, role: FetcherRole): { metrics: MetricsConfig; problems: string[] } {
  const problems: string[] = [];
  const access = (vars.METRICS_ACCESS as MetricsAccess | undefined) ?? 'public';
  const port = vars.METRICS_PORT;
  if (port !== undefined) {
    const [apiName, apiPort] =
      role === FetcherRole.Worker ? ['WORKER_HTTP_PORT', vars.WORKER_HTTP_PORT ?? 4007] : ['PORT', vars.PORT ?? 4006];
    if (port === apiPort) problems.push(`METRICS_PORT: must differ from ${apiName} (${apiPort}), the port this role already listens on`);
    if (access === 'operator') {
      problems.push(
        'METRICS_ACCESS: operator applies to /metrics on the API port; with METRICS_PORT set /metrics is served only on that port, without a credential (unset one of them)',
      );
    }
  }
  if (vars.METRICS_HOST !== undefined && port === undefined) problems.push('METRICS_HOST: needs METRICS_PORT');
  return {
    metrics: { storeRefreshMs: (vars.METRICS_STORE_REFRESH_SECONDS ?? 5) * 1000, port, host: vars.METRICS_HOST, access },
    problems,
  };
}
