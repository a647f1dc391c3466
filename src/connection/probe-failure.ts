import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError } from '../common/errors/fetcher.error.js';
import { DatasourceConnectError, DatasourceError } from '../datasource/datasource.error.js';

/** A message fit for a client: our own errors' messages, never anything that is not an Error. */
export function safeMessage(error: unknown): string {
  return error instanceof DatasourceConnectError || error instanceof Error ? error.message : 'discovery failed';
}

/** A connect that failed, as the API reports it: the connector's message and its reason. */
export function connectionFailed(code: FetCode, error: DatasourceConnectError): DatasourceError {
  return new DatasourceError(code, error.message, { extra: { reason: error.reason } });
}

/** A live discovery that failed: our own errors as they are, a connect as FET-1041, anything else as FET-1042. */
export function discoveryFailure(error: unknown): unknown {
  if (error instanceof FetcherError) return error;
  if (error instanceof DatasourceConnectError) return connectionFailed(FetCode.ConnectionTestFailed, error);
  return new DatasourceError(FetCode.SchemaDiscoveryFailed, `Failed to retrieve database schema information: ${safeMessage(error)}`, {
    extra: { reason: 'unknown' },
  });
}
