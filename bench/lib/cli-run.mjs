// One `fetcher extract` for one repetition: the command as a user runs it (the built bin, plain
// node, no NODE_OPTIONS), the document to a file. Wall time is the whole process, start to exit,
// as the client's is; VmHWM is sampled while it runs.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryOf } from './fetcher-process.mjs';

const live = new Set();

export function liveCliRuns() {
  return [...live];
}

/** Runs the extraction; resolves { seconds, summary, peakRssBytes, file } or rejects with its stderr. */
export async function runCliExtract({ root, dir, url, mappedFields }) {
  const request = join(dir, 'request.json');
  const file = join(dir, 'cli-result.json');
  writeFileSync(request, JSON.stringify({ mappedFields }));
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [
      join(root, 'dist/cli/fetcher.js'),
      'extract',
      '--request',
      request,
      '--datasource',
      'bench_db=env:BENCH_URL',
      '--out',
      file,
      '--json',
      '--quiet',
    ],
    { env: { PATH: process.env.PATH, TZ: 'UTC', BENCH_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  live.add(child);
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, memoryOf(child.pid).hwm);
    } catch {
      // the process is gone
    }
  };
  const sampler = setInterval(sample, 20);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise((done) => child.on('exit', (status, signal) => (sample(), done(status ?? signal))));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  live.delete(child);
  if (code !== 0) throw new Error(`fetcher extract exited ${code}: ${stderr.trim()}`);
  return { seconds, summary: JSON.parse(stdout), peakRssBytes: peak, file };
}

/** SHA-256 of the file the command wrote (outside the timed window). */
export async function sha256Of(file) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}
