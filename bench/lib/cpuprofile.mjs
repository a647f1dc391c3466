// A small reader of V8 .cpuprofile files (what `node --cpu-prof` writes): the functions with the
// most self time. A profile is JSON with `nodes` [{ id, callFrame: { functionName, url,
// lineNumber }, children }], `samples` [node id per sample] and `timeDeltas` [µs before each
// sample]. A node's self time is the sum of the deltas of the samples that hit it; nodes of the
// same function (same name, url and line, reached through different call paths) are added up.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The newest .cpuprofile in `dir` (preferring one written by `pid` when given), or undefined. */
export function newestProfile(dir, pid) {
  let names;
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
  } catch {
    return undefined;
  }
  // Node names them CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile.
  const own = pid === undefined ? [] : names.filter((name) => name.split('.')[3] === String(pid));
  const candidates = (own.length > 0 ? own : names).map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }));
  candidates.sort((a, b) => b.mtime - a.mtime);
  return candidates[0]?.path;
}

/** Shortens a callFrame url: the path inside its node_modules package, relative to `root`, or as is. */
export function shortUrl(url, root) {
  if (!url) return '';
  let path = url;
  if (url.startsWith('file://')) {
    try {
      path = fileURLToPath(url);
    } catch {
      return url;
    }
  }
  const marker = `${sep}node_modules${sep}`;
  const inModules = path.lastIndexOf(marker);
  if (inModules >= 0) return path.slice(inModules + marker.length);
  if (root && path.startsWith(root + sep)) return relative(root, path);
  return path;
}

/** Self time per function, most first: [{ functionName, url, line, selfMicros, share }]. */
export function selfTimes(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const perNode = new Map();
  let total = 0;
  const { samples = [], timeDeltas = [] } = profile;
  for (let i = 0; i < samples.length; i += 1) {
    const delta = Math.max(0, timeDeltas[i] ?? 0);
    total += delta;
    perNode.set(samples[i], (perNode.get(samples[i]) ?? 0) + delta);
  }
  const perFunction = new Map();
  for (const [id, micros] of perNode) {
    const frame = nodes.get(id)?.callFrame ?? {};
    const functionName = frame.functionName || '(anonymous)';
    const url = frame.url ?? '';
    // lineNumber is 0-based in the profile; editors and stack traces count from 1.
    const line = typeof frame.lineNumber === 'number' && frame.lineNumber >= 0 ? frame.lineNumber + 1 : undefined;
    const key = `${functionName}\u0000${url}\u0000${line ?? ''}`;
    const entry = perFunction.get(key) ?? { functionName, url, line, selfMicros: 0 };
    entry.selfMicros += micros;
    perFunction.set(key, entry);
  }
  const functions = [...perFunction.values()];
  for (const entry of functions) entry.share = total > 0 ? entry.selfMicros / total : 0;
  functions.sort((a, b) => b.selfMicros - a.selfMicros);
  return { totalMicros: total, samples: samples.length, functions };
}

/** Reads a .cpuprofile and returns its top `count` functions by self time, urls shortened. */
export function topFunctions(path, { count = 15, root } = {}) {
  const { totalMicros, samples, functions } = selfTimes(JSON.parse(readFileSync(path, 'utf8')));
  return {
    path,
    totalMs: totalMicros / 1000,
    samples,
    top: functions.slice(0, count).map((entry) => ({
      functionName: entry.functionName,
      location: entry.url ? `${shortUrl(entry.url, root)}${entry.line !== undefined ? `:${entry.line}` : ''}` : '',
      selfMs: entry.selfMicros / 1000,
      percent: entry.share * 100,
    })),
  };
}

/** The top list as aligned text lines. */
export function formatTop({ top, totalMs, samples }) {
  const nameWidth = Math.min(40, Math.max(8, ...top.map((entry) => entry.functionName.length)));
  const lines = [`    ${'self ms'.padStart(9)} ${'%'.padStart(6)}  ${'function'.padEnd(nameWidth)}  location`];
  for (const entry of top) {
    const name = entry.functionName.length > nameWidth ? `${entry.functionName.slice(0, nameWidth - 1)}…` : entry.functionName;
    lines.push(
      `    ${entry.selfMs.toFixed(1).padStart(9)} ${entry.percent.toFixed(1).padStart(5)}%  ${name.padEnd(nameWidth)}  ${entry.location}`,
    );
  }
  lines.push(`    (${samples.toLocaleString('en-US')} samples, ${(totalMs / 1000).toFixed(2)} s profiled)`);
  return lines;
}
