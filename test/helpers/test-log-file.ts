import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let instances = 0;

/**
 * The logging environment of one Fetcher a test boots. In a suite run (scripts/run.mjs sets
 * FETCHER_TEST_LOG_DIR) every instance, in-process or spawned, appends its JSON lines at info to a
 * file of its own there, for the after-suite checks to read; run directly, apps stay at `quietLevel`.
 */
export function testLogEnv(quietLevel: string): Record<string, string> {
  const dir = process.env.FETCHER_TEST_LOG_DIR;
  if (!dir) return { LOG_LEVEL: quietLevel };
  instances += 1;
  return { LOG_FILE: join(dir, `${process.pid}-${instances}.jsonl`), LOG_LEVEL: 'log' };
}

/**
 * A log file a test reads itself (set as the app's LOG_FILE): in the suite's log directory when
 * there is one, so the after-suite checks read it too, else in a temporary directory `remove()` deletes.
 */
export function ownLogFile(): { readonly file: string; remove(): void } {
  const env = testLogEnv('log');
  if (env.LOG_FILE !== undefined) return { file: env.LOG_FILE, remove: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-test-log-'));
  return { file: join(dir, 'app.jsonl'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
