import { FetCode } from './fet-code.js';
import { FetcherError, type FetcherErrorOptions } from './fetcher-error.js';

/**
 * Why an extraction did not produce a result: a datasource missing or down, a request that does
 * not fit the schema, a read that failed, a deadline, a cancel. In the service it becomes the
 * job's `error`.
 */
export class ExtractionError extends FetcherError {}

/** FET-1101: the result (or one value of it) would pass the size limit. Nothing is kept. */
export class ResultTooLargeError extends FetcherError {
  constructor(message: string) {
    super(FetCode.ResultTooLarge, message);
  }

  static limit(limitBytes: number): ResultTooLargeError {
    return new ResultTooLargeError(`extraction result exceeds the size limit of ${limitBytes} bytes; nothing was stored`);
  }
}

/** FET-0414: the egress policy refused the host, or an address a server sent the connection on to. */
export class EgressRefusedError extends FetcherError {
  constructor(message: string, options: FetcherErrorOptions = {}) {
    super(FetCode.ForbiddenHost, message, options);
  }
}

/**
 * A connection test or a schema discovery that failed: FET-1041 (cannot connect, with `extra.reason`),
 * FET-1042 (discovery failed) or FET-1043 (discovery did not answer in time).
 */
export class DatasourceProbeError extends FetcherError {}

/**
 * FET-1044: a datasource sent more schema catalog than one discovery may read (the engine's
 * `discoveryMaxBytes`, the service's SCHEMA_DISCOVERY_MAX_BYTES). The discovery stopped there and
 * its connection was closed, so a server that streams catalog rows without end costs that much
 * memory at most.
 */
export class CatalogTooLargeError extends DatasourceProbeError {
  constructor(configName: string, maxBytes: number) {
    super(
      FetCode.SchemaCatalogTooLarge,
      `datasource '${configName}' sent more than ${maxBytes} bytes of schema catalog; discovery stopped and the connection was closed`,
      { extra: { reason: 'too_large', maxBytes } },
    );
  }
}

/** A sealed result that is malformed, or opened with keys that do not fit it (FET-1104). */
export class ResultCodecError extends FetcherError {
  constructor(message: string, options: FetcherErrorOptions = {}) {
    super(FetCode.StorageFailed, message, options);
  }
}

/** An engine built or called with options it cannot honour (a limit above the default, an unknown read path). */
export class EngineOptionsError extends FetcherError {
  constructor(message: string, options: FetcherErrorOptions = {}) {
    super(FetCode.BadRequest, message, options);
  }
}

/**
 * A datasource the engine was given that cannot be used as written: a malformed or unknown URL, a
 * missing field, an SSL mode the engine does not have (FET-0413 then, FET-0001 otherwise). `fields`
 * names what is wrong; never the password.
 */
export class InvalidDatasourceError extends FetcherError {
  constructor(message: string, options: FetcherErrorOptions & { readonly code?: FetCode } = {}) {
    super(options.code ?? FetCode.BadRequest, message, options);
  }
}
