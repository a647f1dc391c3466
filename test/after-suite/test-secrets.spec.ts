import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import secrets from '../helpers/test-secrets.json' with { type: 'json' };

const TEST_DIR = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** A password written as a literal: `password: '…'`, `PASSWORD = '…'`, `IDENTIFIED BY '…'`, a secretKey. */
const LITERAL = /(?:password|PASSWORD|Password|secretKey|accessKey|ADMIN_KEYS?)\s*[:=]\s*'([^'$\n]{4,})'|IDENTIFIED BY '([^'$\n]{4,})'/g;
/** Literals that only look like one: settings, not credentials. */
const NOT_SECRETS = new Set(['true', 'false', 'startup', 'password', 'postgres']);

/** The log scan only knows what test-secrets.json lists: a new literal password in a test must be added there. */
describe('test-secrets.json', () => {
  it('lists every password literal of the test sources', () => {
    const known = new Set(Object.values(secrets.values));
    const missing: string[] = [];
    for (const file of sources(TEST_DIR)) {
      for (const match of readFileSync(file, 'utf8').matchAll(LITERAL)) {
        const literal = match[1] ?? match[2];
        if (!known.has(literal) && !NOT_SECRETS.has(literal)) missing.push(`${relative(TEST_DIR, file)}: ${literal}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('has patterns that are valid and match nothing of an ordinary log line', () => {
    const ordinary =
      '{"level":30,"time":1700000000000,"pid":1,"hostname":"vm","requestId":"0190a000-0000-7000-8000-000000000001",' +
      '"jobId":"0190a000-0000-7000-8000-000000000002","msg":"job completed: 3 rows, 1024 bytes","sha256":"' +
      'ab'.repeat(32) +
      '"}';
    for (const source of Object.values(secrets.patterns)) expect(ordinary).not.toMatch(new RegExp(source));
  });
});
