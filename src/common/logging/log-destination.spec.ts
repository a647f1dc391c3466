import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openLogDestination } from './log-destination.js';
import { pinoOptions } from './logger-options.js';

describe('log destinations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-log-destination-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('appends JSON lines to LOG_FILE, creating its directory, and has them all written once closed', async () => {
    const file = join(dir, 'nested', 'app.jsonl');
    const destination = await openLogDestination({ logFormat: 'json', logFile: file });
    const logger = pino(pinoOptions({ logLevel: 'log' }), destination);
    for (let i = 0; i < 1_000; i += 1) logger.info({ jobId: `job-${i}` }, 'line');
    // Not flushSync(): it cannot write a chunk whose asynchronous write is under way, so on a busy
    // machine some lines would still be on their way; end() resolves once every line has landed.
    await destination.end();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1_000);
    expect(JSON.parse(lines[999])).toMatchObject({ level: 30, msg: 'line', jobId: 'job-999' });
  });

  it('has every line written, in order, even one whose write was under way, once end() resolves (before the process is killed)', async () => {
    const file = join(dir, 'last-line.jsonl');
    const destination = await openLogDestination({ logFormat: 'json', logFile: file });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const logger = pino(pinoOptions({ logLevel: 'log' }), destination);
    for (let round = 0; round < 20; round += 1) {
      // The first line starts an asynchronous write at once; the others wait in the buffer behind it.
      logger.info({ round }, 'Fetcher stopped (SIGTERM)');
    }
    await destination.end();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { round: number }).round)).toEqual(Array.from({ length: 20 }, (_, round) => round));
  });

  it('keeps what was in the file (append, not truncate)', async () => {
    const file = join(dir, 'twice.jsonl');
    for (const round of [1, 2]) {
      const destination = await openLogDestination({ logFormat: 'json', logFile: file }, { sync: true });
      pino(pinoOptions({ logLevel: 'log' }), destination).info({ round }, 'boot');
      await destination.end();
    }
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('writes pretty text, not JSON, when the format is pretty', async () => {
    const file = join(dir, 'pretty.log');
    const destination = await openLogDestination({ logFormat: 'pretty', logFile: file });
    const logger = pino(pinoOptions({ logLevel: 'log' }), destination);
    logger.warn({ context: 'ExtractionService', jobId: 'j-1' }, 'job j-1 failed');
    logger.info({ requestId: 'r-1', method: 'GET', route: '/health', path: '/health', status: 200, durationMs: 1.5 }, 'request completed');
    await destination.end();
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/WARN.*\[ExtractionService\] job j-1 failed/);
    expect(text).toContain('jobId: "j-1"');
    expect(text).toMatch(/INFO.*GET \/health 200 1\.5 ms/);
    expect(text).toContain('requestId: "r-1"');
    expect(() => JSON.parse(text.split('\n')[0])).toThrow(SyntaxError);
  });
});
