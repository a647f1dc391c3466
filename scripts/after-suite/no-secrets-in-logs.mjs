// After the suite: no credential the tests used appears in what the suite logged — the JSON lines
// of every Fetcher instance (under logDir) and the runner's own output. The secrets come from
// test/helpers/test-secrets.json (the same file the tests take them from) and from the TEST_*
// variables that point at external servers. A problem names the secret and where it was found,
// never the secret itself.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** [name, matcher] pairs: a matcher finds the secret in a text and gives the index of the first hit, or -1. */
export function loadSecrets(root, env = process.env) {
  const file = JSON.parse(readFileSync(join(root, 'test', 'helpers', 'test-secrets.json'), 'utf8'));
  const secrets = [];
  for (const [name, value] of Object.entries(file.values)) secrets.push([name, exact(value)]);
  for (const [name, source] of Object.entries(file.patterns)) secrets.push([name, pattern(new RegExp(source))]);
  for (const [name, value] of Object.entries(envSecrets(env))) secrets.push([name, exact(value)]);
  return secrets;
}

/** Passwords of the external test servers: TEST_PG_PASSWORD and the password part of any TEST_*_URL. */
function envSecrets(env) {
  const found = {};
  if (env.TEST_PG_PASSWORD) found.TEST_PG_PASSWORD = env.TEST_PG_PASSWORD;
  for (const [name, value] of Object.entries(env)) {
    if (!/^TEST_[A-Z0-9_]*URL$/.test(name) || !value) continue;
    try {
      const password = decodeURIComponent(new URL(value).password);
      if (password.length >= 4) found[`password of ${name}`] = password;
    } catch {
      // not a URL with credentials
    }
  }
  return found;
}

const exact = (value) => (text) => text.indexOf(value);
const pattern = (regex) => (text) => text.search(regex);

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const lineOf = (text, index) => text.slice(0, index).split('\n').length;

/** One problem per (secret, file): the first line it is on. */
export function scan(files, secrets, base) {
  const problems = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const [name, find] of secrets) {
      const index = find(text);
      if (index >= 0) problems.push(`${relative(base, file)}:${lineOf(text, index)}: contains ${name}`);
    }
  }
  return problems;
}

export default async function noSecretsInLogs({ runDir, logDir, fullSuite, root }) {
  const logs = filesUnder(logDir);
  const problems = [];
  // A full suite boots dozens of instances: no log file at all means logging to files is broken, and this check proves nothing.
  if (fullSuite && logs.filter((file) => statSync(file).size > 0).length === 0) {
    problems.push(`no log lines under ${logDir}: the suite's Fetcher instances did not write their logs there`);
  }
  const output = join(runDir, 'vitest-output.log');
  const files = existsSync(output) ? [...logs, output] : logs;
  return [...problems, ...scan(files, loadSecrets(root), runDir)];
}
