// One `fetcher extract` for one repetition: the command as a user runs it (the built bin, plain
// node, no NODE_OPTIONS), the document to a file. Wall time is the whole process, start to exit,
// as the client's is; VmHWM is sampled while it runs.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryOf } from './fetcher-process.mjs';
import { mib } from './report.mjs';

const live = new Set();

export function liveCliRuns() {
  return [...live];
}

/** Runs the extraction; resolves { seconds, summary, peakRssBytes, file } or rejects with its stderr. */
async function runCliExtract({ root, dir, url, mappedFields }) {
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
async function sha256Of(file) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

/**
 * One `fetcher extract` of the scenario's projection to a file, right after the service's
 * repetition; its document must be the job's, byte for byte (the same SHA-256, checked outside the
 * timed window). Returns its figures, or { failure } saying what went wrong.
 */
export async function cliRepetition({ root, engine, database, scenario, job, sizeBytes, tempDirs }) {
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-bench-cli-'));
  tempDirs.add(dir);
  try {
    const mappedFields = { bench_db: { [scenario.table]: scenario.projection.split(', ') } };
    const run = await runCliExtract({ root, dir, url: engine.url(database), mappedFields });
    const problems = [];
    if (run.summary.rowCount !== scenario.rows) problems.push(`${run.summary.rowCount} rows, expected ${scenario.rows}`);
    if (run.summary.sha256 !== job.result?.sha256) problems.push(`sha256 ${run.summary.sha256} is not the job's ${job.result?.sha256}`);
    if ((await sha256Of(run.file)) !== run.summary.sha256) problems.push('the file does not hash to the sha256 it reported');
    return {
      seconds: run.seconds,
      rowsPerSecond: scenario.rows / run.seconds,
      mibPerSecond: mib(sizeBytes) / run.seconds,
      peakRssBytes: run.peakRssBytes,
      ...(problems.length > 0 ? { failure: problems.join('; ') } : {}),
    };
  } catch (error) {
    return { failure: error.message };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  }
}
