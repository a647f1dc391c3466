import { Logger } from '@nestjs/common';
import { ClientProxyFactory, RmqRecord, Transport, type ClientProxy } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';
import type { EventPublisher, OutboundEvent } from './event-publisher.port.js';

const PUBLISH_TIMEOUT_MS = 5_000;

/**
 * The message body is the event payload itself: Nest's default serializer would wrap it as
 * `{pattern, data}`, which is not the documented contract (PITFALLS).
 */
class PayloadSerializer {
  serialize(packet: { data: unknown }): unknown {
    const record = packet.data;
    return record instanceof RmqRecord ? { ...(record.data as object), options: record.options } : packet.data;
  }
}

/**
 * Publishes to a RabbitMQ topic exchange through @nestjs/microservices: routing key = event type
 * (`job.completed` / `job.failed`), messageId = event id, persistent, with publisher confirms.
 * A publish that does not complete in time closes the client, so a message queued while the broker
 * was away is discarded rather than sent later behind the relay's back (the relay retries it).
 */
export class RmqEventPublisher implements EventPublisher {
  readonly kind = 'rmq';
  private readonly logger = new Logger('EventPublisher');
  private client: ClientProxy | undefined;

  constructor(
    private readonly url: string,
    private readonly exchange: string,
  ) {}

  async publish(event: OutboundEvent): Promise<void> {
    const client = await this.connected();
    const record = new RmqRecord(event.payload, {
      messageId: event.id,
      type: event.type,
      contentType: 'application/json',
      persistent: true,
      timestamp: Math.floor(Date.now() / 1000),
      headers: { 'x-event-id': event.id, 'x-event-type': event.type },
    });
    await this.bounded(firstValueFrom(client.emit(event.type, record), { defaultValue: undefined }), 'publish');
  }

  async ping(): Promise<void> {
    await this.connected();
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close();
  }

  private async connected(): Promise<ClientProxy> {
    if (!this.client) {
      this.client = ClientProxyFactory.create({
        transport: Transport.RMQ,
        options: {
          urls: [this.url],
          exchange: this.exchange,
          exchangeType: 'topic',
          wildcards: true,
          persistent: true,
          serializer: new PayloadSerializer(),
          socketOptions: { heartbeatIntervalInSeconds: 10, reconnectTimeInSeconds: 1 },
        },
      });
    }
    const client = this.client;
    await this.bounded(client.connect(), 'connect');
    return client;
  }

  private async bounded<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`broker did not answer ${what} within ${PUBLISH_TIMEOUT_MS} ms`)), PUBLISH_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      this.logger.warn(`RabbitMQ ${what} failed: ${(error as Error).message ?? String(error)}`);
      await this.close().catch(() => undefined);
      throw error instanceof Error ? error : new Error(String(error));
    } finally {
      clearTimeout(timer);
    }
  }
}
