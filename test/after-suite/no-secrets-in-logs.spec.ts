import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of scripts/after-suite, without type declarations
import noSecretsInLogs from '../../scripts/after-suite/no-secrets-in-logs.mjs';
import { TEST_SECRETS } from '../helpers/test-secrets.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const check = noSecretsInLogs as (context: { runDir: string; logDir: string; fullSuite: boolean; root: string }) => Promise<string[]>;

describe('after-suite: no secrets in logs', () => {
  let runDir: string;
  const setUp = (files: Record<string, string>) => {
    runDir = mkdtempSync(join(tmpdir(), 'fetcher-secret-scan-'));
    const logDir = join(runDir, 'logs');
    mkdirSync(logDir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(runDir, name), text);
    return { runDir, logDir, root: ROOT };
  };
  afterEach(() => rmSync(runDir, { recursive: true, force: true }));

  it('passes clean logs', async () => {
    const context = setUp({
      'logs/1-1.jsonl': '{"level":30,"msg":"request completed","requestId":"abc"}\n',
      'vitest-output.log': ' ✓ test/e2e/x.e2e.spec.ts (3 tests)\n',
    });
    expect(await check({ ...context, fullSuite: true })).toEqual([]);
  });

  it('reports a planted secret by name, file and line, without printing it', async () => {
    const planted = `{"level":40,"msg":"connect failed with ${TEST_SECRETS.TRUST_AUTH_PASSWORD}"}`;
    const context = setUp({
      'logs/1-1.jsonl': `{"level":30,"msg":"fine"}\n${planted}\n`,
      'vitest-output.log': `Authorization: Bearer admin-${'A'.repeat(32)}\n`,
    });
    const problems = await check({ ...context, fullSuite: false });
    expect(problems).toEqual([
      'logs/1-1.jsonl:2: contains TRUST_AUTH_PASSWORD',
      'vitest-output.log:1: contains generated admin key (admin- and 24 random bytes)',
    ]);
    expect(problems.join('\n')).not.toContain(TEST_SECRETS.TRUST_AUTH_PASSWORD);
  });

  it('reports a password of an external test server given by URL', async () => {
    const context = setUp({ 'logs/1-1.jsonl': '{"msg":"login as sa with Xq-Orcl-77 refused"}\n' });
    process.env.TEST_SPEC_ORACLE_URL = 'oracle://sa:Xq-Orcl-77@db:1521/FREE';
    try {
      expect(await check({ ...context, fullSuite: false })).toEqual(['logs/1-1.jsonl:1: contains password of TEST_SPEC_ORACLE_URL']);
    } finally {
      delete process.env.TEST_SPEC_ORACLE_URL;
    }
  });

  it('fails a full suite that left no log lines, but not a filtered run', async () => {
    const context = setUp({ 'vitest-output.log': 'ok\n' });
    expect(await check({ ...context, fullSuite: true })).toEqual([expect.stringMatching(/^no log lines under /)]);
    expect(await check({ ...context, fullSuite: false })).toEqual([]);
  });
});
