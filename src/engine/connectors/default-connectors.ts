import { SILENT_LOGGER, type EngineLogger } from '../support/engine-logger.js';
import { MongoDbConnector } from './mongodb/mongodb.connector.js';
import { MySqlConnector } from './mysql/mysql.connector.js';
import { OracleConnector } from './oracle/oracle.connector.js';
import { PostgresConnector, type PostgresReadPath } from './postgres/postgres.connector.js';
import type { EngineConnector } from './shared/engine-connector.js';
import { SqlServerConnector } from './sqlserver/sqlserver.connector.js';

export interface ConnectorSettings {
  /** `copy` (default): PostgreSQL rows through COPY, with a cursor fallback; `cursor`: always a cursor. */
  readonly postgresReadPath?: PostgresReadPath;
  readonly logger?: EngineLogger;
}

/**
 * One connector per engine, in the order the API lists them. Adding an engine is its facts
 * (`<engine>-engine.ts`, listed in engine-facts.ts) and one class implementing EngineConnector, added here.
 * Constructing them loads no driver: each loads its own on first use.
 */
export function defaultConnectors(settings: ConnectorSettings = {}): EngineConnector[] {
  return [
    new PostgresConnector(settings.postgresReadPath ?? 'copy', settings.logger ?? SILENT_LOGGER),
    new MySqlConnector(),
    new SqlServerConnector(),
    new OracleConnector(),
    new MongoDbConnector(),
  ];
}
