import { describe, expect, it } from 'vitest';
import { CreateConnectionDto } from '../../connection/dto/create-connection.dto.js';
import { CreateJobDto } from '../../job/dto/create-job.dto.js';
import { FetCode } from '../../engine/errors/fet-code.js';
import type { RequestValidationError } from '../errors/request-errors.js';
import { globalValidationPipe } from './request-validation.pipe.js';

/** The global pipe of create-app.ts. */
const pipe = globalValidationPipe();
const asBody = (metatype: new () => object) => ({ type: 'body' as const, metatype, data: '' });
const refusal = async (value: unknown, metatype: new () => object): Promise<RequestValidationError> => {
  try {
    await pipe.transform(value, asBody(metatype));
  } catch (error) {
    return error as RequestValidationError;
  }
  throw new Error('expected a refusal');
};

describe('RequestValidationPipe', () => {
  it('keeps constructor, prototype and toString in the free-form members, and leaves the parsed body as it was', async () => {
    const text =
      '{"metadata":{"source":"reporter","constructor":"c","prototype":{"x":1}},' +
      '"dataRequest":{"mappedFields":{"pg":{"constructor":["prototype"],"toString":["id"]}},' +
      '"filters":{"pg":{"constructor":{"prototype":{"eq":[2]}}}}}}';
    const raw = JSON.parse(text) as Record<string, unknown>;
    const job = (await pipe.transform(raw, asBody(CreateJobDto))) as CreateJobDto;
    expect(job).toBeInstanceOf(CreateJobDto);
    expect(JSON.stringify(job.metadata)).toBe(JSON.stringify(JSON.parse(text).metadata));
    expect(Object.keys(job.dataRequest.mappedFields.pg)).toEqual(['constructor', 'toString']);
    expect(job.dataRequest.filters?.pg.constructor).toEqual({ prototype: { eq: [2] } });
    expect(JSON.stringify(raw)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('hands on the parsed free-form objects themselves when nothing needs copying', async () => {
    const raw = { metadata: { source: 'reporter' }, dataRequest: { mappedFields: { pg: { t: ['id'] } } } };
    const job = (await pipe.transform(raw, asBody(CreateJobDto))) as CreateJobDto;
    expect(job.dataRequest.mappedFields).toBe(raw.dataRequest.mappedFields);
    expect(job.metadata).toBe(raw.metadata);
  });

  it.each([
    ['at the top', '{"constructor":1,"metadata":{"source":"r"},"dataRequest":{"mappedFields":{"pg":{"t":["id"]}}}}', 'constructor'],
    [
      'in dataRequest',
      '{"metadata":{"source":"r"},"dataRequest":{"constructor":{},"mappedFields":{"pg":{"t":["id"]}}}}',
      'dataRequest.constructor',
    ],
    [
      'in limits',
      '{"metadata":{"source":"r"},"dataRequest":{"mappedFields":{"pg":{"t":["id"]}},"limits":{"constructor":1}}}',
      'dataRequest.limits.constructor',
    ],
  ])('refuses constructor %s as an unknown field instead of dropping it', async (_where, text, path) => {
    const error = await refusal(JSON.parse(text), CreateJobDto);
    expect(error.code).toBe(FetCode.BadRequest);
    expect(error.fields).toEqual({ [path]: `${path} is not a known field` });
  });

  it('refuses prototype in a nested DTO as an unknown field', async () => {
    const body = {
      configName: 'abc',
      type: 'POSTGRESQL',
      host: 'h',
      port: 1,
      databaseName: 'd',
      userName: 'u',
      password: 'p',
      ssl: JSON.parse('{"prototype":{}}'),
    };
    expect((await refusal(body, CreateConnectionDto)).fields).toHaveProperty(['ssl.prototype']);
  });

  it('refuses an array where the job or a nested DTO is expected, naming the member', async () => {
    for (const dataRequest of [[], [[]], 'x']) {
      const error = await refusal({ metadata: { source: 'r' }, dataRequest }, CreateJobDto);
      expect(error.fields).toEqual({ dataRequest: 'dataRequest must be an object' });
    }
    const limits = await refusal(
      { metadata: { source: 'r' }, dataRequest: { mappedFields: { pg: { t: ['id'] } }, limits: [[]] } },
      CreateJobDto,
    );
    expect(limits.fields).toEqual({ 'dataRequest.limits': 'dataRequest.limits must be an object' });
  });
});
