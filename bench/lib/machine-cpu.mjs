// Where a window's CPU went on the whole machine: what the bench's own processes, the database
// servers and the rest spent, from /proc (Linux). Jiffies are 10 ms (USER_HZ 100).
import { readdirSync, readFileSync } from 'node:fs';

const JIFFY_MS = 10;

/** Busy CPU time of every core together (user, nice, system, irq, softirq, steal), in ms. */
function machineBusyMs() {
  const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return (user + nice + system + irq + softirq + steal) * JIFFY_MS;
}

/** utime + stime of one process, and (`withChildren`) of its children that ended: cutime + cstime. */
export function processMs(pid, withChildren = false) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return (withChildren ? own + Number(fields[13]) + Number(fields[14]) : own) * JIFFY_MS;
}

/**
 * CPU ms of every process whose command name is `comm`. The server's root process (its parent
 * is not a `comm` too) counts its ended children as well, so a PostgreSQL backend that exits
 * inside the window is still counted: before, as itself; after, in the postmaster's cutime.
 */
function groupMs(comm) {
  const processes = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (name === comm) processes.set(Number(entry), parent);
    } catch {
      // Gone between the listing and the read.
    }
  }
  let total = 0;
  for (const [pid, parent] of processes) {
    try {
      total += processMs(pid, !processes.has(parent));
    } catch {
      // Gone meanwhile: an ended backend is in its parent's cutime by the next reading.
    }
  }
  return total;
}

/** A reading to diff later: the machine, the servers and this process. */
export function machineCpu() {
  const own = process.cpuUsage();
  return {
    busy: machineBusyMs(),
    postgres: groupMs('postgres'),
    redis: groupMs('redis-server'),
    driver: (own.user + own.system) / 1000,
  };
}

/** CPU ms per job between two readings; `fetcher`: what the Manager and Workers spent (measured by their pids). */
export function cpuPerJob(before, after, jobs, fetcherMs) {
  const per = (key) => (after[key] - before[key]) / jobs;
  const busy = per('busy');
  const fetcher = fetcherMs / jobs;
  const postgres = per('postgres');
  const redis = per('redis');
  const driver = per('driver');
  return { busy, fetcher, postgres, redis, driver, rest: busy - fetcher - postgres - redis - driver };
}
