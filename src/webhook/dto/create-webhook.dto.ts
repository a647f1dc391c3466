import { applyDecorators } from '@nestjs/common';
import { ArrayMinSize, ArrayUnique, IsArray, IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalField, RequiredField } from '../../common/http/body-field.decorator.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhook.entity.js';

/** Named request-body examples of POST /v1/management/webhooks; the first is the one Swagger UI pre-fills. */
export const CREATE_WEBHOOK_EXAMPLES = {
  both: {
    summary: 'Both terminal events to one HTTPS receiver',
    value: { url: 'https://hooks.example.com/fetcher', events: ['job.completed', 'job.failed'], description: 'billing exports' },
  },
  failures: { summary: 'Failures only', value: { url: 'https://alerts.example.com/fetcher', events: ['job.failed'] } },
};

const stacked = (...decorators: PropertyDecorator[]): PropertyDecorator => applyDecorators(...decorators.reverse());

export class CreateWebhookDto {
  @RequiredField({
    type: String,
    format: 'uri',
    maxLength: 2048,
    example: 'https://hooks.example.com/fetcher',
    description:
      'http or https, no user:password part; the host is checked by the egress policy now and again before every delivery (400 FET-0414).',
  })
  @stacked(IsString({ message: 'url must be a string' }), MinLength(1, { message: 'url must not be empty' }), MaxLength(2048))
  url!: string;

  @RequiredField({
    type: 'array',
    items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
    minItems: 1,
    uniqueItems: true,
    example: ['job.completed', 'job.failed'],
    description: 'The terminal events to deliver: non-empty, no repeats.',
  })
  @stacked(
    IsArray({ message: 'events must be an array' }),
    ArrayMinSize(1, { message: 'events must list at least one event type' }),
    ArrayUnique({ message: 'events must not repeat an event type' }),
    IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `each event must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }),
  )
  events!: WebhookEventType[];

  @OptionalField({ type: String, maxLength: 500, example: 'billing exports', description: 'Free text, at most 500 characters.' })
  @stacked(IsString({ message: 'description must be a string' }), MaxLength(500, { message: 'description must be at most 500 characters' }))
  description?: string;
}
