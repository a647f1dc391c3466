import { ApiProperty } from '../../common/http/api-docs.js';
import { PageOf } from '../../common/http/page.dto.js';
import { DELIVERY_STATES, WEBHOOK_EVENT_TYPES, type DeliveryState, type WebhookEventType, type WebhookRecord } from '../webhook.entity.js';
import type { DeliveryView } from '../webhook-delivery.repository.js';

const EXAMPLE_ID = '0190f3c2-0000-7000-8000-000000000000';
const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7P2rLuV6Iuw=';

/** A webhook as every route but create and rotate-secret shows it: never its secret. */
export class WebhookDto {
  @ApiProperty({ type: String, format: 'uuid', example: EXAMPLE_ID }) id!: string;
  @ApiProperty({ type: String, example: 'reporter', description: 'The product whose jobs it reports.' }) productName!: string;
  @ApiProperty({ type: String, format: 'uri', example: 'https://hooks.example.com/fetcher' }) url!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] }, example: ['job.completed', 'job.failed'] })
  events!: WebhookEventType[];
  @ApiProperty({ type: String, nullable: true, example: 'billing exports' }) description!: string | null;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-15T10:00:00.000Z' }) createdAt!: string;

  static from(record: WebhookRecord): WebhookDto {
    return {
      id: record.id,
      productName: record.productName,
      url: record.url,
      events: record.events,
      description: record.description,
      createdAt: record.createdAt.toISOString(),
    };
  }
}

/** The answer of create and rotate-secret: the only two that ever show the secret. */
export class WebhookWithSecretDto extends WebhookDto {
  @ApiProperty({
    type: String,
    example: EXAMPLE_SECRET,
    description: 'whsec_ + base64 of 32 random bytes. Shown only here: store it now; it signs every delivery (docs/webhooks.md).',
  })
  secret!: string;
}

export class WebhookPageDto extends PageOf(WebhookDto, { example: 2, description: 'Webhooks visible to the credential.' }) {}

export class DeliveryAttemptDto {
  @ApiProperty({
    type: String,
    format: 'uuid',
    example: EXAMPLE_ID,
    description: 'The delivery (= webhook-id header), stable across retries.',
  })
  deliveryId!: string;
  @ApiProperty({ type: String, example: `fetcher.job.completed.${EXAMPLE_ID}` }) eventId!: string;
  @ApiProperty({ type: String, enum: [...WEBHOOK_EVENT_TYPES], example: 'job.completed' }) eventType!: WebhookEventType;
  @ApiProperty({ type: String, format: 'uuid', example: EXAMPLE_ID }) jobId!: string;
  @ApiProperty({ type: Number, minimum: 1, example: 1 }) attempt!: number;
  @ApiProperty({ type: Number, nullable: true, example: 200, description: 'The receiver’s HTTP status; null when none came.' })
  statusCode!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 42, description: 'Until the response ended; null when none came.' })
  latencyMs!: number | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Why the attempt failed; null when it was delivered.' })
  error!: string | null;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-15T10:00:01.000Z' }) attemptedAt!: string;
}

/** One delivery (a terminal event to one webhook) with its attempts, newest first. */
export class WebhookDeliveryDto {
  @ApiProperty({ type: String, format: 'uuid', example: EXAMPLE_ID }) deliveryId!: string;
  @ApiProperty({ type: String, example: `fetcher.job.completed.${EXAMPLE_ID}` }) eventId!: string;
  @ApiProperty({ type: String, enum: [...WEBHOOK_EVENT_TYPES], example: 'job.completed' }) eventType!: WebhookEventType;
  @ApiProperty({ type: String, format: 'uuid', example: EXAMPLE_ID }) jobId!: string;
  @ApiProperty({
    type: String,
    enum: [...DELIVERY_STATES],
    example: 'delivered',
    description: 'pending: not yet answered 2xx, retried; delivered: a 2xx came; dead: retries stopped (window over, or webhook deleted).',
  })
  state!: DeliveryState;
  @ApiProperty({ type: Number, minimum: 0, example: 1 }) attempts!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'When a pending delivery is tried next.' })
  nextAttemptAt!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    example: '2026-01-15T10:00:00.000Z',
    description: 'When the job reached its terminal status.',
  })
  createdAt!: string;
  @ApiProperty({ type: [DeliveryAttemptDto] }) attemptList!: DeliveryAttemptDto[];

  static from(view: DeliveryView): WebhookDeliveryDto {
    return {
      deliveryId: view.id,
      eventId: view.eventId,
      eventType: view.eventType as WebhookEventType,
      jobId: view.jobId,
      state: view.state,
      attempts: view.attempts,
      nextAttemptAt: view.nextAttemptAt?.toISOString() ?? null,
      createdAt: view.createdAt.toISOString(),
      attemptList: view.attemptList.map((attempt) => ({
        deliveryId: view.id,
        eventId: view.eventId,
        eventType: view.eventType as WebhookEventType,
        jobId: view.jobId,
        attempt: attempt.attempt,
        statusCode: attempt.statusCode,
        latencyMs: attempt.latencyMs,
        error: attempt.error,
        attemptedAt: attempt.attemptedAt.toISOString(),
      })),
    };
  }
}

export class WebhookDeliveryPageDto extends PageOf(WebhookDeliveryDto, {
  example: 5,
  description: 'Deliveries of the webhook, newest first.',
}) {}
