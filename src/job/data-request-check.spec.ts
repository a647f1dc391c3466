import { describe, expect, it } from 'vitest';
import { FetCode } from '../engine/errors/fet-code.js';
import { DEFAULT_CEILINGS } from '../engine/request/data-request.js';
import { checkDataRequest } from './data-request-check.js';
import { FetcherError } from '../engine/errors/fetcher-error.js';

function jobErrorOf(request: Parameters<typeof checkDataRequest>[0]): FetcherError {
  try {
    checkDataRequest(request, DEFAULT_CEILINGS);
  } catch (error) {
    expect(error).toBeInstanceOf(FetcherError);
    return error as FetcherError;
  }
  throw new Error('expected a FetcherError');
}

describe('checkDataRequest', () => {
  it('passes a valid request through', () => {
    expect(() => checkDataRequest({ mappedFields: { ds: { t: ['id'] } } }, DEFAULT_CEILINGS)).not.toThrow();
  });

  it('answers FET-1061 when only count limits are exceeded, with every problem as a detail', () => {
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`t${i}`, ['id']]));
    const error = jobErrorOf({ mappedFields: { ds: tooMany } });
    expect(error.code).toBe(FetCode.LimitExceeded);
    expect(error.details?.[0]).toMatchObject({ type: 'limit_exceeded', datasource: 'ds' });
    expect(Object.keys(error.fields ?? {})).toEqual(['dataRequest.mappedFields.ds']);
  });

  it('answers FET-0401 for a malformed request, naming the field', () => {
    const error = jobErrorOf({ mappedFields: { ds: { t: [] } } });
    expect(error.code).toBe(FetCode.InvalidDataRequest);
    expect(error.fields).toEqual({ 'dataRequest.mappedFields.ds.t': "field list of 'ds.t' must be a non-empty array" });
  });

  it('names the fields by their path in a body that is the data request itself (validate-schema)', () => {
    let thrown: unknown;
    try {
      checkDataRequest({ mappedFields: { ds: { t: [] } } }, DEFAULT_CEILINGS, 'body');
    } catch (error) {
      thrown = error;
    }
    expect((thrown as FetcherError).fields).toEqual({ 'mappedFields.ds.t': "field list of 'ds.t' must be a non-empty array" });
  });
});
