import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { isStoreError } from './store-error.js';

describe('isStoreError', () => {
  it('knows the store’s own failures: a refused statement, a lost or refused connection, a pool that gave none in time', () => {
    expect(isStoreError(new QueryFailedError('SELECT 1', [], new Error('canceling statement due to statement timeout')))).toBe(true);
    expect(isStoreError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isStoreError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isStoreError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isStoreError(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('leaves every other error to its caller: a bug, our own errors, a SQLSTATE-coded driver error outside TypeORM', () => {
    expect(isStoreError(new TypeError("Cannot read properties of undefined (reading 'host')"))).toBe(false);
    expect(isStoreError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isStoreError('ECONNREFUSED')).toBe(false);
    expect(isStoreError(undefined)).toBe(false);
  });
});
