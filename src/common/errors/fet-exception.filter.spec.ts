import type { ArgumentsHost } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FetCode } from '../../engine/errors/fet-code.js';
import { FetExceptionFilter } from './fet-exception.filter.js';
import { FetcherError } from '../../engine/errors/fetcher-error.js';

/** A domain error as any module defines one. */
class QueueError extends FetcherError {
  constructor(message: string) {
    super(FetCode.ServiceUnavailable, message);
  }
}

function hostAnswering(): { host: ArgumentsHost; answer: { status?: number; body?: unknown } } {
  const answer: { status?: number; body?: unknown } = {};
  const response = {
    setHeader: () => undefined,
    status(code: number) {
      answer.status = code;
      return this;
    },
    json(body: unknown) {
      answer.body = body;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  return { host, answer };
}

describe('FetExceptionFilter logging', () => {
  afterEach(() => vi.restoreAllMocks());

  it('logs a job store that is down as one warning with the driver code: no stack, no driver message', () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432 for user fetcher_admin'), { code: 'ECONNREFUSED' });
    const { host, answer } = hostAnswering();
    new FetExceptionFilter().catch(refused, host);
    expect(answer.status).toBe(503);
    expect(error).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe(`${FetCode.ServiceUnavailable} job store unavailable (ECONNREFUSED)`);
  });

  it('logs an unexpected error at error level with its stack, and answers a bare 500', () => {
    const error = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, answer } = hostAnswering();
    new FetExceptionFilter().catch(new TypeError('x is undefined'), host);
    expect(answer.status).toBe(500);
    expect(String(error.mock.calls[0][0])).toContain('TypeError: x is undefined\n    at ');
  });

  it('logs a FetcherError of the 5xx range as a warning with its code', () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { host, answer } = hostAnswering();
    new FetExceptionFilter().catch(new QueueError('queue down'), host);
    expect(answer.status).toBe(503);
    expect(warn).toHaveBeenCalledWith(`${FetCode.ServiceUnavailable} queue down`);
  });
});
