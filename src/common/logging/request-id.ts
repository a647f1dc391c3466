import { RandomIdGenerator } from '../clock/id-generator.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * What a caller's own id may look like to be kept: short, and without spaces, quotes or control
 * characters, so it can neither forge a log line nor smuggle text into one.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Not the injected IdGenerator: specs replace that one with a sequence, and a request id must not consume it.
const ids = new RandomIdGenerator();

/** The caller's X-Request-Id when it is a sane token; undefined for anything else (several headers included). */
export function acceptedRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : undefined;
}

/** A new request id: a time-ordered UUID, so ids sort like the requests they name. */
export function newRequestId(): string {
  return ids.orderedUuid();
}

/** The id a request is known by: the caller's when acceptable, else a new one. The refused value is never kept. */
export function requestIdFor(header: string | string[] | undefined): string {
  return acceptedRequestId(header) ?? newRequestId();
}
