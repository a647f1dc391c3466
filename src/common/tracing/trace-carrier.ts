/**
 * The W3C trace context of the work that created a job, as it travels with the job through the
 * queue: only `traceparent` and `tracestate`, never baggage, so nothing else a caller sent rides
 * along into Redis.
 */
export type TraceCarrier = { readonly traceparent: string; readonly tracestate?: string };

/** A traceparent is 55 characters; tracestate is capped at 512 by the W3C spec. */
const MAX_TRACEPARENT = 64;
const MAX_TRACESTATE = 512;

/**
 * The carrier stored in a queue message, or nothing: messages written before carriers existed
 * (or by anything else) have none, and a malformed one is dropped rather than trusted.
 */
export function traceCarrierFrom(value: unknown): TraceCarrier | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  if (typeof traceparent !== 'string' || traceparent.length === 0 || traceparent.length > MAX_TRACEPARENT) return undefined;
  if (typeof tracestate === 'string' && tracestate.length > 0 && tracestate.length <= MAX_TRACESTATE) return { traceparent, tracestate };
  return { traceparent };
}
