import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** The CommonJS modules a fresh process holds after importing `entry` from the build. */
function modulesLoadedBy(entry: string): string[] {
  const script = `
    await import(${JSON.stringify(resolve(root, entry))});
    const { createRequire } = await import('node:module');
    console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim().split('\n').pop() as string) as string[];
}

describe('drivers load on first use', () => {
  it('the application graph loads no SQL Server, MongoDB, MySQL or Oracle driver until a connection needs it', () => {
    const loaded = modulesLoadedBy('dist/app.module.js');
    // The graph itself is there: PostgreSQL (the job store's driver too) and the connectors' code.
    expect(loaded.some((path) => path.includes('/node_modules/pg/'))).toBe(true);
    for (const driver of ['mssql', 'tedious', 'mongodb', 'mysql2', 'oracledb']) {
      expect(loaded.filter((path) => path.includes(`/node_modules/${driver}/`)), driver).toEqual([]);
    }
  });
});
