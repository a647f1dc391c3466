/** A terminal event as the outbox holds it: stable id, type (routing key) and payload. */
export interface OutboundEvent {
  readonly id: string;
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

/** Delivers terminal events to a broker. Resolves only once the broker has taken the event. */
export interface EventPublisher {
  readonly kind: string;
  publish(event: OutboundEvent): Promise<void>;
  /** Readiness probe: throws when the broker cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const EVENT_PUBLISHER = Symbol('EVENT_PUBLISHER');
