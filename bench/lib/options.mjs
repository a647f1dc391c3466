// The bench's command line: `npm run bench -- …` parsed into options, or usage and exit.
import { resolve } from 'node:path';
import { ENGINES } from './engines.mjs';

const USAGE = `usage: npm run bench -- [--engine postgres|mariadb] [--scenario rows|mixed|large] [--reps N] [--rows N]
                        [--format LIST] [--json FILE] [--profile DIR] [--keep]
  --engine    one engine only (default: both)
  --scenario  rows (1M × 8 columns), mixed (the same eight types at 1.25M rows, ~244 MiB), large
              (~251 MiB result), or several comma-separated; default: rows,large. \`--scenario incremental\`
              runs bench/incremental-bench.mjs: full vs incremental job on PostgreSQL (--rows, --reps);
              \`--scenario small-jobs\` runs bench/small-jobs-bench.mjs: a Manager and two Workers, many small jobs
  --reps      paired repetitions per engine and scenario (default 3; 1 with --profile)
  --rows      rows of the rows scenario (default 1000000)
  --format    result formats of PostgreSQL's rows scenario, comma-separated (default json,ndjson,csv+gzip,parquet);
              every other scenario runs json
  --json      write every repetition's figures, the summaries and the machine to FILE
  --profile   run Fetcher with --cpu-prof into DIR and print the top 15 functions by self time
  --keep      keep the bench databases`;

const FORMATS = ['json', 'ndjson', 'csv+gzip', 'parquet'];

export function parseArgs(argv) {
  const options = {
    engines: ['postgres', 'mariadb'],
    scenarios: ['rows', 'large'],
    formats: [...FORMATS],
    reps: undefined,
    rows: 1_000_000,
    keep: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) usage(`${arg} needs a value`);
      i += 1;
      return next;
    };
    const count = (text, name) => {
      const n = Number(text);
      if (!Number.isSafeInteger(n) || n < 1) usage(`${name} must be a positive integer`);
      return n;
    };
    if (arg === '--help' || arg === '-h') usage();
    else if (arg === '--engine') {
      const engine = value();
      if (!ENGINES[engine]) usage('--engine must be postgres or mariadb');
      options.engines = [engine];
    } else if (arg === '--scenario') {
      const scenarios = value().split(',');
      if (scenarios.some((scenario) => !['rows', 'mixed', 'large'].includes(scenario))) usage('--scenario takes rows, mixed and large');
      options.scenarios = scenarios;
    } else if (arg === '--reps') options.reps = count(value(), '--reps');
    else if (arg === '--rows') options.rows = count(value(), '--rows');
    else if (arg === '--format') {
      const formats = value().split(',');
      if (formats.some((format) => !FORMATS.includes(format))) usage(`--format takes ${FORMATS.join(', ')}`);
      // The JSON document is the reference the other formats are compared with: always measured.
      options.formats = ['json', ...formats.filter((format) => format !== 'json')];
    } else if (arg === '--json') options.json = resolve(value());
    else if (arg === '--profile') options.profile = resolve(value());
    else if (arg === '--keep') options.keep = true;
    else usage(`unknown argument ${arg}`);
  }
  // A profiled run is slower anyway; one repetition gives the profile.
  options.reps ??= options.profile ? 1 : 3;
  return options;
}

function usage(problem) {
  if (problem) process.stderr.write(`error: ${problem}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(problem ? 2 : 0);
}
