import { describe, expect, it } from 'vitest';
import type { RequestValidationError } from '../../common/errors/request-errors.js';
import { globalValidationPipe } from '../../common/http/request-validation.pipe.js';
import { CreateWebhookDto } from './create-webhook.dto.js';

/** The global pipe of create-app.ts. */
const pipe = globalValidationPipe();
const check = (value: unknown) => pipe.transform(value, { type: 'body', metatype: CreateWebhookDto, data: '' });
const refusal = async (value: unknown): Promise<RequestValidationError> => {
  try {
    await check(value);
  } catch (error) {
    return error as RequestValidationError;
  }
  throw new Error('expected a refusal');
};

describe('CreateWebhookDto', () => {
  it('takes a url, the events and a description', async () => {
    const body = (await check({
      url: 'https://h.example.com/x',
      events: ['job.failed', 'job.completed'],
      description: 'd',
    })) as CreateWebhookDto;
    expect(body.events).toEqual(['job.failed', 'job.completed']);
  });

  it.each([
    [{ events: ['job.failed'] }, 'url', 'FET-0402'],
    [{ url: 7, events: ['job.failed'] }, 'url', 'FET-0001'],
    [{ url: 'https://h.example.com', events: [] }, 'events', 'FET-0001'],
    [{ url: 'https://h.example.com', events: ['job.started'] }, 'events', 'FET-0001'],
    [{ url: 'https://h.example.com', events: ['job.failed', 'job.failed'] }, 'events', 'FET-0001'],
    [{ url: 'https://h.example.com', events: 'job.failed' }, 'events', 'FET-0001'],
    [{ url: 'https://h.example.com', events: ['job.failed'], description: 'x'.repeat(501) }, 'description', 'FET-0001'],
    [{ url: 'https://h.example.com', events: ['job.failed'], secret: 'mine' }, 'secret', 'FET-0001'],
  ])('refuses %j naming %s', async (body, field, code) => {
    const error = await refusal(body);
    expect(error.code).toBe(code);
    expect(Object.keys(error.fields ?? {})).toContain(field);
  });
});
