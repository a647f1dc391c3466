import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../config/load-config.js';
import { pinoLevelOf } from './log-level.js';
import { loggerParams, pinoOptions } from './logger-options.js';
import { scrubSecrets } from './scrub-secrets.js';

const KEY = Buffer.alloc(32, 1).toString('base64');

/** A pino logger built from the shared options, writing into an array of parsed lines. */
function capture(logLevel: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino(pinoOptions({ logLevel }), stream), lines };
}

describe('log levels', () => {
  it.each([
    ['fatal', 'fatal'],
    ['error', 'error'],
    ['warn', 'warn'],
    ['log', 'info'],
    ['debug', 'debug'],
    ['verbose', 'trace'],
  ])('maps LOG_LEVEL=%s to pino %s', (nest, expected) => {
    expect(pinoLevelOf(nest)).toBe(expected);
  });

  it('writes what the level allows and drops the rest', () => {
    const { logger, lines } = capture('warn');
    logger.info('dropped');
    logger.warn('kept');
    logger.error('kept too');
    expect(lines.map((line) => line.msg)).toEqual(['kept', 'kept too']);
    const verbose = capture('verbose');
    verbose.logger.trace('a trace line');
    expect(verbose.lines).toHaveLength(1);
  });

  it('gives the pino-http side the same level and the requestId field name', () => {
    const [http] = loggerParams({ logLevel: 'debug' }).pinoHttp as [Record<string, unknown>, unknown];
    expect(http).toMatchObject({ level: 'debug', customAttributeKeys: { reqId: 'requestId' }, quietReqLogger: true, autoLogging: false });
  });
});

describe('what a line may carry', () => {
  it('logs a request as its method and path only: no headers, no query string', () => {
    const { logger, lines } = capture('log');
    const req = {
      method: 'GET',
      url: '/v1/fetcher/1?token=query-secret',
      headers: { authorization: 'Bearer header-secret', 'x-api-key': 'key-secret', cookie: 'c=cookie-secret' },
    };
    logger.info({ req }, 'a line with a request');
    expect(lines[0].req).toEqual({ method: 'GET', path: '/v1/fetcher/1' });
    expect(JSON.stringify(lines)).not.toMatch(/secret/);
  });

  it('redacts credential headers and passwords wherever a line carries them anyway', () => {
    const { logger, lines } = capture('log');
    logger.info(
      { headers: { authorization: 'Bearer a-secret', 'x-api-key': 'b-secret' }, password: 'c-secret', db: { password: 'd-secret' } },
      'x',
    );
    expect(JSON.stringify(lines)).not.toMatch(/secret/);
    expect(lines[0]).toMatchObject({ headers: { authorization: '[redacted]', 'x-api-key': '[redacted]' }, password: '[redacted]' });
  });

  it('masks credentials in a message or a field written by a driver', () => {
    const { logger, lines } = capture('log');
    logger.warn({ stack: 'Error: connect to postgres://fetcher:s3cret@db:5432/x failed' }, 'amqp://guest:guestpass@mq:5672 refused');
    expect(lines[0].msg).toBe('amqp://guest:***@mq:5672 refused');
    expect(lines[0].stack).toBe('Error: connect to postgres://fetcher:***@db:5432/x failed');
  });

  it.each([
    ['Server=db;User Id=sa;Password=Str0ng!pass;', 'Server=db;User Id=sa;Password=***;'],
    ["host=db password='a b c' user=x", 'host=db password=*** user=x'],
    ['pwd = hunter2, next', 'pwd = ***, next'],
    ['a job id 0190a000-0000-7000-8000-000000000001 and no secret', 'a job id 0190a000-0000-7000-8000-000000000001 and no secret'],
    ['mailto user@example.com stays', 'mailto user@example.com stays'],
  ])('scrubs %j', (text, expected) => {
    expect(scrubSecrets(text)).toBe(expected);
  });
});

describe('LOG_FORMAT', () => {
  const load = (env: Record<string, string>, stdoutIsTTY: boolean) =>
    loadAppConfig({ APP_ENC_KEY: KEY, DATA_DIR: '/tmp/fetcher-log-format', ...env }, { stdoutIsTTY });

  it('is pretty for a person at a terminal outside production, JSON otherwise', () => {
    expect(load({}, true).logFormat).toBe('pretty');
    expect(load({}, false).logFormat).toBe('json');
    expect(load({ NODE_ENV: 'production', AUTH_MODE: 'none' }, true).logFormat).toBe('json');
    expect(load({ LOG_FILE: '/tmp/fetcher.log' }, true).logFormat).toBe('json');
  });

  it('follows LOG_FORMAT when set, and refuses another value, naming the variable', () => {
    expect(load({ LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
    expect(load({ LOG_FORMAT: 'pretty' }, false).logFormat).toBe('pretty');
    expect(() => load({ LOG_FORMAT: 'xml' }, false)).toThrow(/LOG_FORMAT: must be one of json, pretty/);
  });

  it('resolves LOG_FILE to an absolute path', () => {
    expect(load({ LOG_FILE: 'logs/fetcher.log' }, false).logFile).toMatch(/^\/.*\/logs\/fetcher\.log$/);
  });
});
