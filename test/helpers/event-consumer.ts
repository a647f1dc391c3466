import amqp from 'amqplib';
import { eventSigningKey, signatureProblem, type RawEvent } from './event-signature-check.js';

export interface ReceivedEvent {
  readonly routingKey: string;
  readonly messageId: string;
  readonly body: Record<string, any>;
}

/** A message the consumer refused, and why. */
export interface RejectedEvent {
  readonly routingKey: string;
  readonly messageId: string;
  readonly reason: string;
}

export interface EventConsumer {
  /** Messages whose signature verified, in arrival order. */
  readonly received: ReceivedEvent[];
  /** The same messages as read off the wire (`raw[i]` is `received[i]`). */
  readonly raw: RawEvent[];
  /** Messages refused by the signature check: they are in neither list above. */
  readonly rejected: RejectedEvent[];
  close(): Promise<void>;
}

/**
 * A consumer bound to the events exchange, as a downstream service would bind one. It checks the
 * signature of every message it receives (event-signature-check.ts) with a key it derives from
 * `masterKey` itself, and keeps only those that verify: an event test that waits for an event
 * fails when the event is not signed right.
 */
export async function consumeEvents(
  exchange: string,
  options: { url?: string; masterKey?: string; routingKeys?: readonly string[] } = {},
): Promise<EventConsumer> {
  const key = eventSigningKey(options.masterKey);
  const connection = await amqp.connect(options.url ?? 'amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  for (const routingKey of options.routingKeys ?? ['job.completed', 'job.failed']) await channel.bindQueue(queue, exchange, routingKey);
  const consumer: EventConsumer = {
    received: [],
    raw: [],
    rejected: [],
    async close() {
      await channel.close().catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
  await channel.consume(queue, (message) => {
    if (!message) return;
    const raw: RawEvent = {
      exchange: message.fields.exchange,
      routingKey: message.fields.routingKey,
      headers: message.properties.headers ?? {},
      content: message.content,
    };
    const messageId = String(message.properties.messageId);
    const problem = signatureProblem(raw, key);
    if (problem !== null) {
      consumer.rejected.push({ routingKey: raw.routingKey, messageId, reason: problem });
    } else {
      consumer.received.push({ routingKey: raw.routingKey, messageId, body: JSON.parse(message.content.toString('utf8')) });
      consumer.raw.push(raw);
    }
    channel.ack(message);
  });
  return consumer;
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
