import { Logger } from '@nestjs/common';
import { ClientRMQ, type ReadPacket, type RmqOptions } from '@nestjs/microservices';
import type { Channel, Options } from 'amqplib';
import { firstValueFrom } from 'rxjs';
import { Clock, SystemClock } from '../common/clock/clock.js';
import { UnroutableEventError, type EventPublisher, type OutboundEvent } from './event-publisher.port.js';
import type { EventSigner } from './event-signature.js';
import { withDeadline } from '../engine/concurrency/settles-within.js';

const PUBLISH_TIMEOUT_MS = 5_000;

/** A message as the publisher hands it to the client: where it goes and the bytes it signed, with their properties. */
interface SignedMessage {
  readonly exchange: string;
  readonly routingKey: string;
  readonly body: Buffer;
  readonly options: Options.Publish;
}

/** What amqplib hands a channel's `return` listeners (basic.return): the fields it types loosely. */
interface ReturnedMessage {
  readonly fields: { readonly replyCode?: number; readonly replyText?: string };
  readonly properties: { readonly messageId?: unknown };
}

/**
 * Nest's RabbitMQ client, with two changes:
 * - it listens for basic.return on every channel it opens (a new one after each reconnect): Nest
 *   has no option for it, and publishes with `mandatory` are returned;
 * - it publishes the body it is given as it is. Nest's own dispatchEvent JSON-encodes what its
 *   serializer returns (by default wrapped as `{pattern, data}`); the signature is over the bytes
 *   on the wire, so the bytes signed are the bytes sent.
 */
class SignedEventClientRmq extends ClientRMQ {
  constructor(
    options: Required<RmqOptions>['options'],
    private readonly onReturn: (message: ReturnedMessage) => void,
  ) {
    super(options);
  }

  override async setupChannel(channel: Channel, resolve: Parameters<ClientRMQ['setupChannel']>[1]): Promise<void> {
    channel.on('return', this.onReturn);
    await super.setupChannel(channel, resolve);
  }

  protected override async dispatchEvent(packet: ReadPacket<SignedMessage>): Promise<void> {
    if (!this.channel) throw new Error('RabbitMQ channel is not open');
    const { exchange, routingKey, body, options } = packet.data;
    await this.channel.publish(exchange, routingKey, body, options);
  }
}

/**
 * Publishes to a RabbitMQ topic exchange through @nestjs/microservices: routing key = event type
 * (`job.completed` / `job.failed`), messageId = event id, persistent, with publisher confirms, and
 * signed as the original signs its messages (docs/compatibility.md#terminal-events) (event-signature.ts). Each publish is signed afresh
 * with the time it is sent, so a retry after a refusal or an outage carries a current `t`.
 * A publish that does not complete in time closes the client, so a message queued while the broker
 * was away is discarded rather than sent later behind the relay's back (the relay retries it).
 *
 * Publishes are `mandatory`: a confirm alone only says the exchange took the message, also when no
 * queue is bound for its routing key and it was dropped. RabbitMQ sends the basic.return of such
 * a message before its confirm, on the same channel, so once the confirm is in, the publisher
 * knows whether it was routed, and rejects with UnroutableEventError if not.
 */
export class RmqEventPublisher implements EventPublisher {
  readonly kind = 'rmq';
  private readonly logger = new Logger('EventPublisher');
  private client: ClientRMQ | undefined;
  /**
   * Publishes awaiting their confirm, by message id (= event id; the relay never publishes one
   * event twice at a time), with the broker's reply once returned.
   */
  private readonly inFlight = new Map<string, { returned?: string }>();
  private readonly onReturn = (message: ReturnedMessage): void => {
    const publish = this.inFlight.get(String(message.properties.messageId));
    if (publish !== undefined) publish.returned = `${message.fields.replyCode ?? '?'} ${message.fields.replyText ?? 'returned'}`;
  };

  constructor(
    private readonly url: string,
    private readonly exchange: string,
    private readonly signer: EventSigner,
    private readonly clock: Clock = new SystemClock(),
  ) {}

  async publish(event: OutboundEvent): Promise<void> {
    const client = await this.connected();
    const message = this.signed(event);
    const publish: { returned?: string } = {};
    this.inFlight.set(event.id, publish);
    try {
      await this.bounded(firstValueFrom(client.emit(event.type, message), { defaultValue: undefined }), 'publish');
    } finally {
      this.inFlight.delete(event.id);
    }
    // The broker is fine (it confirmed): the client stays open.
    if (publish.returned !== undefined)
      throw new UnroutableEventError(event.id, event.type, `exchange "${this.exchange}"`, publish.returned);
  }

  /** The event's JSON body and properties, signed now (after connecting, so `t` is the time it is sent). */
  private signed(event: OutboundEvent): SignedMessage {
    const body = Buffer.from(JSON.stringify(event.payload), 'utf8');
    const t = Math.floor(this.clock.nowMs() / 1000);
    const jobId = typeof event.payload.jobId === 'string' ? event.payload.jobId : '';
    const signed = { t, tenantId: '', jobId, exchange: this.exchange, routingKey: event.type, body };
    return {
      exchange: signed.exchange,
      routingKey: signed.routingKey,
      body,
      options: {
        messageId: event.id,
        type: event.type,
        contentType: 'application/json',
        persistent: true,
        mandatory: true,
        timestamp: t,
        headers: { 'x-event-id': event.id, 'x-event-type': event.type, ...this.signer.headers(signed) },
      },
    };
  }

  async ping(): Promise<void> {
    await this.connected();
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close();
  }

  private async connected(): Promise<ClientRMQ> {
    if (!this.client) {
      this.client = new SignedEventClientRmq(
        {
          urls: [this.url],
          exchange: this.exchange,
          exchangeType: 'topic',
          wildcards: true,
          persistent: true,
          socketOptions: { heartbeatIntervalInSeconds: 10, reconnectTimeInSeconds: 1 },
        },
        this.onReturn,
      );
    }
    const client = this.client;
    await this.bounded(client.connect(), 'connect');
    return client;
  }

  private async bounded<T>(work: Promise<T>, what: string): Promise<T> {
    try {
      return await withDeadline(work, PUBLISH_TIMEOUT_MS, () => new Error(`broker did not answer ${what} within ${PUBLISH_TIMEOUT_MS} ms`));
    } catch (error) {
      this.logger.warn(`RabbitMQ ${what} failed: ${(error as Error).message ?? String(error)}`);
      await this.close().catch(() => undefined);
      throw error instanceof Error ? error : new Error(String(error));
    }
  }
}
