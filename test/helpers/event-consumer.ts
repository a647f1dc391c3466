import amqp from 'amqplib';

export interface ReceivedEvent {
  readonly routingKey: string;
  readonly messageId: string;
  readonly body: Record<string, any>;
}

/** A consumer bound to the events exchange, as a downstream service would bind one. */
export async function consumeEvents(
  exchange: string,
  url = 'amqp://guest:guest@127.0.0.1:5672',
): Promise<{ received: ReceivedEvent[]; close(): Promise<void> }> {
  const connection = await amqp.connect(url);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, 'job.completed');
  await channel.bindQueue(queue, exchange, 'job.failed');
  const received: ReceivedEvent[] = [];
  await channel.consume(queue, (message) => {
    if (!message) return;
    received.push({
      routingKey: message.fields.routingKey,
      messageId: String(message.properties.messageId),
      body: JSON.parse(message.content.toString('utf8')),
    });
    channel.ack(message);
  });
  return {
    received,
    async close() {
      await channel.close().catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
