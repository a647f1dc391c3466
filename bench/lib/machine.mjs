// What the figures were measured on: the machine, the database servers and the commit.
import { spawnSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { ENGINES } from './engines.mjs';

/** The checked-out commit and whether tracked files differ from it; undefined outside a git tree. */
export function gitInfo(root) {
  const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return undefined;
  const status = git('status', '--porcelain', '--untracked-files=no');
  return { commit: head.stdout.trim(), dirty: status.status === 0 ? status.stdout.trim().length > 0 : undefined };
}

/** Cores, memory, kernel, Node and the server version of each engine; throws when a server is not reachable. */
export async function machineInfo(engines) {
  const cpu = cpus();
  const versions = {};
  for (const name of engines) {
    try {
      versions[name] = await ENGINES[name].version();
    } catch (error) {
      throw new Error(`${name} is not reachable: ${error.message}`, { cause: error });
    }
  }
  return {
    cores: cpu.length,
    model: cpu[0]?.model?.trim() ?? 'unknown',
    totalMemoryBytes: totalmem(),
    kernel: release(),
    node: process.version,
    loadAverageAtStart: loadavg().map((n) => Number(n.toFixed(2))),
    postgres: versions.postgres,
    mariadb: versions.mariadb,
  };
}
