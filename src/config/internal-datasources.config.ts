import { v5 as uuidv5 } from 'uuid';
import type { DatasourceEndpoint } from '../engine/connectors/shared/engine-connector.js';
import { acceptsSslMode, ENGINE_FACTS, engineFacts } from '../engine/connectors/shared/engine-facts.js';
import type { DatasourceType } from '../engine/connectors/datasource-type.js';

/**
 * Namespace of the original service, so internal datasource ids stay the same across both
 * (docs/compatibility.md#internal-datasource-ids).
 */
const INTERNAL_ID_NAMESPACE = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
const CONFIG_NAME_PATTERN = /^[A-Za-z0-9_-]{3,100}$/;
const PRODUCT_NAME_PATTERN = /^[a-z0-9_-]{1,100}$/;

/** A datasource declared by `DATASOURCE_<NAME>_*` variables (docs/api.md, "Internal datasources"). */
export interface InternalDatasourceConfig extends DatasourceEndpoint {
  /** UUIDv5 of `/<configName>`: stable across restarts and replicas. */
  readonly id: string;
  /** The `<NAME>` of its variables, for messages. */
  readonly envName: string;
  readonly metadata: Readonly<Record<string, string>>;
  /** DATASOURCE_<NAME>_PRODUCTS, lower-cased: only these products may use it; null: every product. */
  readonly products: readonly string[] | null;
}

export const internalDatasourceId = (configName: string): string => uuidv5(`/${configName}`, INTERNAL_ID_NAMESPACE);

/**
 * Reads every `DATASOURCE_<NAME>_CONFIG_NAME` and its sibling variables. Returns the datasources
 * and a list of problems, each naming the variable; the caller refuses to boot when there is one.
 */
export function parseInternalDatasources(env: NodeJS.ProcessEnv): { datasources: InternalDatasourceConfig[]; problems: string[] } {
  const problems: string[] = [];
  const datasources: InternalDatasourceConfig[] = [];
  const seen = new Map<string, string>();
  const names = Object.keys(env)
    .map((key) => /^DATASOURCE_(.+)_CONFIG_NAME$/.exec(key)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort();

  for (const envName of names) {
    const read = (suffix: string) => {
      const value = env[`DATASOURCE_${envName}_${suffix}`];
      return value === undefined || value.trim() === '' ? undefined : value.trim();
    };
    const variable = (suffix: string) => `DATASOURCE_${envName}_${suffix}`;
    const before = problems.length;

    const configName = read('CONFIG_NAME') ?? '';
    if (!CONFIG_NAME_PATTERN.test(configName)) problems.push(`${variable('CONFIG_NAME')}: must be 3-100 characters of [A-Za-z0-9_-]`);
    const previous = seen.get(configName);
    if (previous !== undefined)
      problems.push(`${variable('CONFIG_NAME')}: '${configName}' is already declared by DATASOURCE_${previous}_CONFIG_NAME`);
    seen.set(configName, envName);

    const type = read('TYPE');
    // The engine's facts come straight from their files: this runs at boot, before dependency injection.
    const facts = type === undefined ? undefined : engineFacts(type);
    if (!facts) problems.push(`${variable('TYPE')}: must be one of ${ENGINE_FACTS.map((engine) => engine.type).join(', ')}`);
    const host = read('HOST');
    if (!host) problems.push(`${variable('HOST')}: is required`);
    const databaseName = read('DATABASE');
    if (!databaseName) problems.push(`${variable('DATABASE')}: is required`);
    const portText = read('PORT');
    const port = portText === undefined ? (facts?.defaultPort ?? 0) : Number(portText);
    if (!Number.isInteger(port) || port < 1 || port > 65535) problems.push(`${variable('PORT')}: must be an integer from 1 to 65535`);
    const sslMode = read('SSLMODE') ?? null;
    if (facts && !acceptsSslMode(facts, sslMode)) problems.push(`${variable('SSLMODE')}: must be one of ${facts.ssl.modes.join(', ')}`);
    const metadata: Record<string, string> = {};
    for (const pair of (read('OPTIONS') ?? '').split('&').filter(Boolean)) {
      const [key, ...rest] = pair.split('=');
      if (!key || rest.length === 0) problems.push(`${variable('OPTIONS')}: expected k=v&k=v, got '${pair}'`);
      else metadata[decodeURIComponent(key)] = decodeURIComponent(rest.join('='));
    }
    const missing = facts?.requiredMetadata?.filter((key) => !metadata[key]) ?? [];
    for (const key of missing) problems.push(`${variable('OPTIONS')}: ${facts?.label} needs ${key}=…`);
    const productsText = read('PRODUCTS');
    const products =
      productsText === undefined
        ? null
        : productsText
            .split(',')
            .map((name) => name.trim().toLowerCase())
            .filter(Boolean);
    if (products !== null && (products.length === 0 || products.some((name) => !PRODUCT_NAME_PATTERN.test(name)))) {
      problems.push(`${variable('PRODUCTS')}: must be a comma-separated list of product names (1-100 of [a-z0-9_-])`);
    }
    if (problems.length > before) continue;

    datasources.push({
      id: internalDatasourceId(configName),
      envName,
      configName,
      type: type as DatasourceType,
      host: host as string,
      port,
      databaseName: databaseName as string,
      schemaName: read('SCHEMA') ?? null,
      userName: read('USER') ?? '',
      password: env[variable('PASSWORD')] ?? '',
      ssl: { mode: sslMode, ca: read('SSL_CA'), cert: read('SSL_CERT'), key: read('SSL_KEY') },
      metadata,
      products,
    });
  }
  return { datasources, problems };
}
