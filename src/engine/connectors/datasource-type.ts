import { MONGODB_ENGINE } from './mongodb/mongodb-engine.js';
import { MYSQL_ENGINE } from './mysql/mysql-engine.js';
import { ORACLE_ENGINE } from './oracle/oracle-engine.js';
import { POSTGRES_ENGINE } from './postgres/postgres-engine.js';
import { ENGINE_FACTS, type EngineType } from './shared/engine-facts.js';
import { SQLSERVER_ENGINE } from './sqlserver/sqlserver-engine.js';

/** An engine as the API names it (`POSTGRESQL`); each is declared by the facts in its connector's folder. */
export type DatasourceType = EngineType;

/** The engines by the names code uses for them (`DatasourceType.PostgreSQL`). */
export const DatasourceType = {
  PostgreSQL: POSTGRES_ENGINE.type,
  MySQL: MYSQL_ENGINE.type,
  SqlServer: SQLSERVER_ENGINE.type,
  Oracle: ORACLE_ENGINE.type,
  MongoDB: MONGODB_ENGINE.type,
} as const;

/** In the order the API lists them. */
export const DATASOURCE_TYPES: readonly DatasourceType[] = ENGINE_FACTS.map((facts) => facts.type);
