// The command line of bench/small-jobs-bench.mjs (`npm run bench -- --scenario small-jobs …`).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const log = (line) => process.stdout.write(`${line}\n`);
const warn = (line) => process.stderr.write(`${line}\n`);

const USAGE = `usage: npm run bench -- --scenario small-jobs [--jobs N] [--clients LIST] [--reps N] [--json FILE] [--profile DIR] [--keep]
  --jobs      jobs per repetition (default 600)
  --clients   client counts, comma-separated (default 20,4,1)
  --reps      repetitions per client count (default 3)
  --json      write every repetition's figures and the summaries to FILE
  --profile   run the Manager and the Workers with --cpu-prof into DIR; prints each one's top 15 functions
  --keep      keep the bench databases`;

/** The small-jobs bench's command line, or its usage and exit 2. */
export function smallJobsOptions(args) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        scenario: { type: 'string' },
        jobs: { type: 'string', default: '600' },
        clients: { type: 'string', default: '20,4,1' },
        reps: { type: 'string', default: '3' },
        json: { type: 'string' },
        profile: { type: 'string' },
        keep: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    warn(`error: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
  if (parsed.help) {
    log(USAGE);
    process.exit(0);
  }
  const count = (text, name) => {
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 1) {
      warn(`error: ${name} must be a positive integer\n${USAGE}`);
      process.exit(2);
    }
    return n;
  };
  return {
    jobs: count(parsed.jobs, '--jobs'),
    clients: parsed.clients.split(',').map((text) => count(text, '--clients')),
    reps: count(parsed.reps, '--reps'),
    json: parsed.json && resolve(parsed.json),
    profile: parsed.profile && resolve(parsed.profile),
    keep: parsed.keep,
  };
}
