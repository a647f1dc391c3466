import { DatasourceType } from '../connectors/datasource-type.js';
import type { ConnectorSession, EngineConnector, ResolvedDatasource } from '../connectors/shared/engine-connector.js';
import { EgressGuard } from '../egress/egress-guard.js';
import { createEngine, type Engine } from '../engine.js';
import type { EngineOptions } from '../engine-options.js';

/** How a scripted connector opens a datasource: a session of the test's, or a failure. */
export type ScriptedOpen = (datasource: ResolvedDatasource, signal?: AbortSignal) => Promise<ConnectorSession>;

/** A PostgreSQL-typed connector (default schema `public`) whose sessions the test scripts. */
export function scriptedConnector(open: ScriptedOpen, type: EngineConnector['type'] = DatasourceType.PostgreSQL): EngineConnector {
  return { type, defaultSchema: () => 'public', open: (datasource, options) => open(datasource, options.signal) };
}

/**
 * The real engine (planning, execution, sealing) over a scripted connector, with an egress policy
 * that answers a public address for every name: a unit test of whatever runs the engine, with no
 * database and no DNS.
 */
export function scriptedEngine(open: ScriptedOpen, options: EngineOptions = {}): Engine {
  return createEngine({
    connectors: [scriptedConnector(open)],
    egress: new EgressGuard({ allowPrivateHosts: false }, async () => ['93.184.216.34']),
    ...options,
  });
}
