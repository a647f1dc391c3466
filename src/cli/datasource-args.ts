import { UsageError } from './cli-io.js';

const NAME = /^[A-Za-z0-9_-]{1,100}$/;

/** `FETCHER_DATASOURCE_<NAME>`: the config name upper-cased, every character outside [A-Z0-9] as `_`. */
export function datasourceVariable(configName: string): string {
  return `FETCHER_DATASOURCE_${configName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * A URL as given on the command line: `env:VAR` reads it from the environment (so a password never
 * stands in the process list or the shell history). `flag` names where it came from, for messages.
 */
export function urlFrom(value: string, env: NodeJS.ProcessEnv, flag: string): string {
  if (!value.startsWith('env:')) return value;
  const variable = value.slice(4);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) throw new UsageError(`${flag}: env:${variable.slice(0, 60)} is not a variable name`);
  const url = env[variable];
  if (url === undefined || url.trim() === '') throw new UsageError(`${flag}: environment variable ${variable} is not set`);
  return url.trim();
}

/**
 * The URL of every datasource the request names: from `--datasource name=url` (or `name=env:VAR`),
 * else from FETCHER_DATASOURCE_<NAME>. A name given twice, a malformed entry or a datasource with
 * no URL at all is a usage error naming it.
 */
export function datasourceUrls(entries: readonly string[], configNames: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const given = new Map<string, string>();
  for (const entry of entries) {
    const equals = entry.indexOf('=');
    const name = equals < 0 ? entry : entry.slice(0, equals);
    if (equals <= 0 || equals === entry.length - 1 || !NAME.test(name)) {
      throw new UsageError(
        `--datasource: expected <name>=<url> or <name>=env:<VAR>, with a name of [A-Za-z0-9_-] (got ${JSON.stringify(name.slice(0, 60))})`,
      );
    }
    if (given.has(name)) throw new UsageError(`--datasource: ${name} is given twice`);
    given.set(name, urlFrom(entry.slice(equals + 1), env, `--datasource ${name}`));
  }
  const urls: Record<string, string> = {};
  for (const name of configNames) {
    const url = given.get(name) ?? env[datasourceVariable(name)]?.trim();
    if (!url) throw new UsageError(`no URL for datasource '${name}': give --datasource ${name}=<url> or set ${datasourceVariable(name)}`);
    urls[name] = url;
  }
  return urls;
}
