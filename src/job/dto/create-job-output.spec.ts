import { describe, expect, it } from 'vitest';
import { FetCode } from '../../engine/errors/fet-code.js';
import type { RequestValidationError } from '../../common/errors/request-errors.js';
import { globalValidationPipe } from '../../common/http/request-validation.pipe.js';
import { storedOutput } from '../job-output.js';
import { CreateJobDto } from './create-job.dto.js';

/** The global pipe of create-app.ts. */
const pipe = globalValidationPipe();
const body = (output: unknown) => ({
  metadata: { source: 'reporter' },
  dataRequest: { mappedFields: { pg: { t: ['id'] } } },
  ...(output === undefined ? {} : { output }),
});
const accept = async (output: unknown) =>
  (await pipe.transform(body(output), { type: 'body', metatype: CreateJobDto, data: '' })) as CreateJobDto;
async function refusal(output: unknown): Promise<RequestValidationError> {
  try {
    await accept(output);
  } catch (error) {
    return error as RequestValidationError;
  }
  throw new Error(`expected ${JSON.stringify(output)} to be refused`);
}

describe('POST /v1/fetcher output', () => {
  it.each([
    ['absent', undefined, null],
    ['null', null, null],
    ['empty', {}, null],
    ['the default, spelled out', { format: 'json', compression: 'none' }, null],
    ['ndjson', { format: 'ndjson' }, { format: 'ndjson', compression: 'none' }],
    ['csv with gzip', { format: 'csv', compression: 'gzip' }, { format: 'csv', compression: 'gzip' }],
    ['parquet', { format: 'parquet', compression: 'none' }, { format: 'parquet', compression: 'none' }],
    ['json with gzip', { compression: 'gzip' }, { format: 'json', compression: 'gzip' }],
  ])('accepts %s, stored as the job records it', async (_name, output, stored) => {
    const dto = await accept(output);
    expect(storedOutput(dto.output)).toEqual(stored);
  });

  it.each([
    ['an unknown format', { format: 'xml' }, { 'output.format': 'output.format must be one of json, ndjson, csv, parquet' }],
    ['an unknown compression', { compression: 'brotli' }, { 'output.compression': 'output.compression must be one of none, gzip, zstd' }],
    ['a null member', { format: null }, { 'output.format': 'output.format must be one of json, ndjson, csv, parquet' }],
    ['a format of the wrong case', { format: 'CSV' }, { 'output.format': 'output.format must be one of json, ndjson, csv, parquet' }],
    ['an unknown member', { format: 'csv', level: 9 }, { 'output.level': 'output.level is not a known field' }],
    ['a string', 'csv', { output: 'output must be an object' }],
    ['an array', ['csv'], { output: 'output must be an object' }],
  ])('refuses %s with FET-0001 naming the field and what is wrong', async (_name, output, fields) => {
    const error = await refusal(output);
    expect(error.code).toBe(FetCode.BadRequest);
    // An array is also walked as a nested value by ValidateNested, which adds its own line.
    expect(error.fields).toMatchObject(fields);
  });

  it('names both members when both are wrong', async () => {
    const error = await refusal({ format: 'xml', compression: 'lz4' });
    expect(Object.keys(error.fields ?? {}).sort()).toEqual(['output.compression', 'output.format']);
  });

  it('accepts zstd', async () => {
    expect(storedOutput((await accept({ format: 'ndjson', compression: 'zstd' })).output)).toEqual({
      format: 'ndjson',
      compression: 'zstd',
    });
  });
});
