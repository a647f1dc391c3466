import { EntitySchema } from 'typeorm';
import { columnTypes, type DatabaseKind } from '../persistence/database-kind.js';

export const WEBHOOK_EVENT_TYPES = ['job.completed', 'job.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const DELIVERY_STATES = ['pending', 'delivered', 'dead'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A registration. The secret is only ever stored sealed (CredentialCipher) with its key version. */
export interface WebhookRecord {
  id: string;
  productName: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  secretCiphertext: string;
  keyVersion: string;
  createdAt: Date;
  deletedAt: Date | null;
}

/** One attempt of one delivery, as GET …/deliveries lists it. */
export interface DeliveryAttemptRecord {
  deliveryId: string;
  attempt: number;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  attemptedAt: Date;
}

export const WEBHOOK_ENTITY = 'Webhook';
export const DELIVERY_ATTEMPT_ENTITY = 'WebhookDeliveryAttempt';

export function webhookEntities(kind: DatabaseKind): EntitySchema[] {
  const types = columnTypes(kind);
  return [
    new EntitySchema<WebhookRecord>({
      name: WEBHOOK_ENTITY,
      tableName: 'webhooks',
      columns: {
        id: { type: 'varchar', length: 36, primary: true },
        productName: { type: 'varchar', length: 100, name: 'product_name' },
        url: { type: 'varchar', length: 2048 },
        events: { type: types.json },
        description: { type: 'varchar', length: 500, nullable: true },
        secretCiphertext: { type: 'text', name: 'secret_ciphertext' },
        keyVersion: { type: 'varchar', length: 32, name: 'key_version' },
        createdAt: { type: types.timestamp, name: 'created_at' },
        deletedAt: { type: types.timestamp, name: 'deleted_at', nullable: true },
      },
    }) as EntitySchema,
    new EntitySchema<DeliveryAttemptRecord>({
      name: DELIVERY_ATTEMPT_ENTITY,
      tableName: 'webhook_delivery_attempts',
      columns: {
        deliveryId: { type: 'varchar', length: 36, name: 'delivery_id', primary: true },
        attempt: { type: 'integer', primary: true },
        statusCode: { type: 'integer', name: 'status_code', nullable: true },
        latencyMs: { type: 'integer', name: 'latency_ms', nullable: true },
        error: { type: 'varchar', length: 1000, nullable: true },
        attemptedAt: { type: types.timestamp, name: 'attempted_at' },
      },
    }) as EntitySchema,
  ];
}
