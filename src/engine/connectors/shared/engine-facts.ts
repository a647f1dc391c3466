import { MONGODB_ENGINE } from '../mongodb/mongodb-engine.js';
import { MYSQL_ENGINE } from '../mysql/mysql-engine.js';
import { ORACLE_ENGINE } from '../oracle/oracle-engine.js';
import { POSTGRES_ENGINE } from '../postgres/postgres-engine.js';
import { SQLSERVER_ENGINE } from '../sqlserver/sqlserver-engine.js';
import type { EngineFacts } from './engine-definition.js';

/**
 * Every engine Fetcher connects to, in the order the API lists them: the one list behind the
 * datasource types, the API's enums, config validation (at boot, before dependency injection)
 * and the ConnectorRegistry.
 */
export const ENGINE_FACTS = [POSTGRES_ENGINE, MYSQL_ENGINE, SQLSERVER_ENGINE, ORACLE_ENGINE, MONGODB_ENGINE] as const;

export type EngineType = (typeof ENGINE_FACTS)[number]['type'];

const BY_TYPE: ReadonlyMap<string, EngineFacts> = new Map(ENGINE_FACTS.map((facts) => [facts.type, facts]));

/** The facts of an engine; undefined for a name that is none (an unchecked DATASOURCE_<NAME>_TYPE). */
export function engineFacts(type: EngineType): EngineFacts;
export function engineFacts(type: string): EngineFacts | undefined;
export function engineFacts(type: string): EngineFacts | undefined {
  return BY_TYPE.get(type);
}

/** An empty or absent mode stands for the engine's default; any other must be one of its modes, as written. */
export function acceptsSslMode(facts: EngineFacts, mode: string | null | undefined): boolean {
  return mode === undefined || mode === null || mode === '' || facts.ssl.modes.includes(mode);
}

/** The metadata keys that are part of a connection's endpoint identity for this engine (EngineFacts.identityMetadata). */
export function identityMetadataOf(type: string): readonly string[] {
  return engineFacts(type)?.identityMetadata ?? [];
}
