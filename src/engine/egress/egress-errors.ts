import { EgressRefusedError } from '../errors/engine-errors.js';
import { DatasourceConnectError } from '../errors/datasource-errors.js';

/** FET-0414 for a record's own host. The host is never echoed: the caller knows it, a log reader need not. */
export function forbiddenHost(): EgressRefusedError {
  return new EgressRefusedError('Host is not a valid external database endpoint', {
    fields: { host: 'this host is not allowed: loopback, private, link-local and cloud metadata addresses are refused' },
  });
}

/**
 * FET-0414 for a socket the driver opens after the checked one: a listener REDIRECT, a SQL
 * Server routing answer, a name the driver resolved again. The address came from the server
 * or its DNS, not from the record, so neither is repeated.
 */
export function forbiddenOnward(configName: string): EgressRefusedError {
  return new EgressRefusedError(
    `The connection to datasource "${configName}" was stopped: the database server or its DNS sent it on to an address that is not allowed (loopback, private, link-local, cloud metadata or reserved)`,
  );
}

/** A node DNS error code is safe to show; anything else is reduced to nothing. */
function dnsCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^E[A-Z_]{2,30}$/.test(code) ? ` (${code})` : '';
}

/**
 * The host name has no address now. The connection is not attempted at all: a driver left to
 * resolve the name by itself could get an answer that was never checked.
 */
export function unresolvedHost(configName: string, error?: unknown): DatasourceConnectError {
  return new DatasourceConnectError(
    configName,
    'unreachable',
    `Cannot connect to datasource "${configName}": its host name does not resolve to any address${dnsCode(error)}`,
  );
}
