/** A terminal event as the outbox holds it: stable id, type (routing key) and payload. */
export interface OutboundEvent {
  readonly id: string;
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

/**
 * The broker took the event but could deliver it to no consumer (RabbitMQ: no queue bound to the
 * exchange for its routing key). It is not published: it must stay in the outbox.
 */
export class UnroutableEventError extends Error {
  override readonly name = 'UnroutableEventError';

  constructor(
    readonly eventId: string,
    readonly routingKey: string,
    readonly destination: string,
    /** The broker's own words, e.g. `312 NO_ROUTE`. */
    readonly brokerReply: string,
  ) {
    super(`no queue is bound to ${destination} for routing key "${routingKey}" (${brokerReply})`);
  }
}

/**
 * Delivers terminal events to a broker. `publish` resolves only once the broker has taken the
 * event and routed it to at least one queue; it rejects with UnroutableEventError when the broker
 * took it but had nowhere to route it, and with another error when the broker could not be reached.
 */
export interface EventPublisher {
  readonly kind: string;
  publish(event: OutboundEvent): Promise<void>;
  /** Readiness probe: throws when the broker cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const EVENT_PUBLISHER = Symbol('EVENT_PUBLISHER');
