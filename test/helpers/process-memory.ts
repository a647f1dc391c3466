import { readFileSync } from 'node:fs';

/** Peak resident set of a process so far (VmHWM), in bytes. */
export function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmHWM:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}
