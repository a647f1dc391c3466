import { randomBytes } from 'node:crypto';

/**
 * A database name of `prefix` (folded to what every engine takes unquoted, cut to `prefixLength`)
 * that no other run, nor a run in parallel, has: the time and random bytes make it unique.
 */
export function uniqueDatabaseName(prefix: string, prefixLength = 30): string {
  const clean =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, '_')
      .slice(0, prefixLength) || 'tmp';
  return `${clean}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}
