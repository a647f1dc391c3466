import type { ResolvedDatasource } from '../connectors/shared/engine-connector.js';
import { acceptsSslMode, ENGINE_FACTS, engineFacts, type EngineType } from '../connectors/shared/engine-facts.js';
import { InvalidDatasourceError } from '../errors/engine-errors.js';
import { FetCode } from '../errors/fet-code.js';

/**
 * A datasource as a caller of the engine describes it: the fields of a connection the service
 * stores (docs/api.md, "Connections"), with the engine's names. What a connection URL
 * (datasource-url.ts) becomes, too.
 */
export interface DatasourceDescriptor {
  /** `POSTGRESQL`, `MYSQL` (MySQL and MariaDB), `SQL_SERVER`, `ORACLE` or `MONGODB`. */
  readonly type: EngineType;
  readonly host: string;
  /** The engine's default port when absent (5432, 3306, 1433, 1521, 27017). */
  readonly port?: number;
  /** The database (Oracle: ignored, the service name is `metadata.serviceName`). */
  readonly databaseName: string;
  /** Namespace of unqualified table names: PostgreSQL `public`, SQL Server `dbo`, Oracle the login's schema when absent. */
  readonly schemaName?: string | null;
  readonly userName?: string;
  readonly password?: string;
  /** The engine's SSL mode (docs/security.md lists them) and PEM material. */
  readonly ssl?: { readonly mode?: string | null; readonly ca?: string; readonly cert?: string; readonly key?: string };
  /** Engine options: Oracle `serviceName` (required), MongoDB `authSource`, Oracle `sslServerCertDN`. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Stable identity for what the engine remembers of a datasource (a server that refused COPY); default: its endpoint. */
  readonly id?: string;
  /**
   * Connect by name with no egress check at all: for datasources the process itself declares
   * (the service's DATASOURCE_<NAME>_* variables), never for ones a caller sent.
   */
  readonly internal?: boolean;
  /**
   * With an engine that has a `sessionPool`: sessions of this datasource may be kept and serve
   * later calls that give the same scope, id and credentials (docs/engine.md, "Session reuse").
   */
  readonly reuseScope?: string;
}

const CONFIG_NAME = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * The complete datasource the connectors are given, or InvalidDatasourceError naming what is
 * wrong (`datasources.<name>.<field>`). A password is never part of a message.
 */
export function resolveDescriptor(configName: string, descriptor: DatasourceDescriptor): ResolvedDatasource {
  const where = `datasources.${configName}`;
  const refuse = (field: string, message: string, code?: FetCode) =>
    new InvalidDatasourceError(`datasource '${configName}': ${message}`, { code, fields: { [`${where}.${field}`]: message } });
  if (!CONFIG_NAME.test(configName)) {
    throw new InvalidDatasourceError(
      `datasource name ${JSON.stringify(configName.slice(0, 120))} must be 1-100 characters of [A-Za-z0-9_-]`,
      {
        fields: { datasources: 'names are 1-100 characters of [A-Za-z0-9_-]' },
      },
    );
  }
  if (typeof descriptor !== 'object' || descriptor === null) throw refuse('type', 'must be a connection URL or a descriptor object');
  const facts = engineFacts(String(descriptor.type));
  if (!facts) throw refuse('type', `type must be one of ${ENGINE_FACTS.map((engine) => engine.type).join(', ')}`);
  if (typeof descriptor.host !== 'string' || descriptor.host.trim() === '') throw refuse('host', 'host is required');
  const port = descriptor.port ?? facts.defaultPort;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw refuse('port', 'port must be an integer from 1 to 65535');
  const metadata = descriptor.metadata ?? {};
  const databaseName = descriptor.databaseName ?? '';
  if (typeof databaseName !== 'string' || (databaseName.trim() === '' && facts.requiredMetadata === undefined))
    throw refuse('databaseName', 'databaseName is required');
  for (const key of facts.requiredMetadata ?? []) {
    if (typeof metadata[key] !== 'string' || (metadata[key] as string).trim() === '')
      throw refuse(`metadata.${key}`, `${facts.label} needs metadata.${key}`);
  }
  const ssl = descriptor.ssl ?? {};
  if (!acceptsSslMode(facts, ssl.mode))
    throw refuse('ssl.mode', `ssl mode must be one of ${facts.ssl.modes.join(', ')}`, FetCode.InvalidSslMode);
  const userName = descriptor.userName ?? '';
  return {
    id: descriptor.id ?? `${facts.type}://${encodeURIComponent(userName)}@${descriptor.host}:${port}/${encodeURIComponent(databaseName)}`,
    configName,
    type: facts.type as EngineType,
    host: descriptor.host.trim(),
    port,
    databaseName,
    schemaName: descriptor.schemaName ?? null,
    userName,
    password: descriptor.password ?? '',
    ssl: { mode: ssl.mode ?? null, ca: ssl.ca, cert: ssl.cert, key: ssl.key },
    metadata,
    internal: descriptor.internal === true,
    ...(typeof descriptor.reuseScope === 'string' && descriptor.reuseScope !== '' ? { reuseScope: descriptor.reuseScope } : {}),
  };
}
