import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * After the suite: the statuses the API document claims per operation against those the tests
 * saw. The api-docs e2e spec writes the document the running app serves to
 * `<run dir>/openapi.json`; every app instance writes one access line per request into the log
 * directory. Reported:
 *  - always: an answer the document does not list for its operation (or a route it lacks);
 *  - on a full run: a documented (operation, status) no test produced, a claim nothing checks,
 *    unless UNOBSERVABLE below says why no end-to-end test can produce it.
 */

/**
 * Documented answers no access line can show, each with the reason (`*`: any method or path).
 * Prefer a test to an entry here.
 */
export const UNOBSERVABLE = [
  {
    method: '*',
    path: '*',
    status: 500,
    reason: 'FET-0002 for an unexpected error is documented on every route, and only a defect (or a simulated one) produces it',
  },
  {
    method: '*',
    path: '*',
    status: 413,
    reason: 'the JSON parser refuses a body over 1 MiB before routing, so its access line has route "unmatched"',
  },
];

/** Not in the document on purpose: the Prometheus scrape and the API docs themselves. */
const UNDOCUMENTED_ROUTES = [/^\/metrics$/, /^\/swagger(-json)?(\/.*)?$/];
const UNMATCHED = 'unmatched';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** `/v1/fetcher/:id` → `/v1/fetcher/{id}`, as OpenAPI writes a path. */
export function openApiPath(route) {
  return route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** An access line as the logging writes it, or undefined for any other line. */
export function accessLine(text) {
  let line;
  try {
    line = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (line === null || typeof line !== 'object' || line.msg !== 'request completed') return undefined;
  const { method, route, status } = line;
  if (typeof method !== 'string' || typeof route !== 'string' || !Number.isInteger(status)) return undefined;
  return { method: method.toLowerCase(), route, status, path: typeof line.path === 'string' ? line.path : route };
}

/** Whether an UNOBSERVABLE entry names this documented answer. */
function excuses(entry, method, path, status) {
  return (entry.method === '*' || entry.method === method) && (entry.path === '*' || entry.path === path) && entry.status === status;
}

/** Whether a documented response key covers a status: `404`, `4XX` or `default`. */
function covers(key, status) {
  if (key === 'default') return true;
  if (/^[1-5]XX$/i.test(key)) return key[0] === String(status)[0];
  return Number(key) === status;
}

/**
 * The problems of one run: `document` the OpenAPI object, `lines` the access lines
 * (`{method, route, status, path, source?}`), `fullSuite` whether every spec ran.
 */
export function checkDocumentedStatuses({ document, lines, fullSuite, unobservable = UNOBSERVABLE }) {
  const paths = document?.paths ?? {};
  const problems = [];
  const undocumented = new Map();
  const observed = new Set();
  for (const line of lines) {
    if (line.route === UNMATCHED || UNDOCUMENTED_ROUTES.some((pattern) => pattern.test(line.route))) continue;
    // Express answers HEAD with the GET route.
    const lower = line.method.toLowerCase();
    const method = lower === 'head' ? 'get' : lower;
    const path = openApiPath(line.route);
    const operation = paths[path]?.[method];
    observed.add(`${method} ${path} ${line.status}`);
    const documented = operation && Object.keys(operation.responses ?? {}).some((key) => covers(key, line.status));
    if (documented) continue;
    const key = operation
      ? `${method.toUpperCase()} ${path} answered ${line.status}`
      : `${method.toUpperCase()} ${path} is not in the document`;
    const seen = undocumented.get(key) ?? { count: 0, example: line };
    seen.count += 1;
    undocumented.set(key, seen);
  }
  for (const [key, { count, example }] of undocumented) {
    const where = example.source ? ` in ${example.source}` : '';
    problems.push(`undocumented: ${key} (${count}×, e.g. ${example.path}${where})`);
  }
  if (!fullSuite) return problems;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations ?? {})) {
      if (!METHODS.has(method)) continue;
      for (const key of Object.keys(operation?.responses ?? {})) {
        if (!/^\d{3}$/.test(key)) continue;
        const status = Number(key);
        if (observed.has(`${method} ${path} ${status}`)) continue;
        if (unobservable.some((entry) => excuses(entry, method, path, status))) continue;
        problems.push(`unobserved: ${method.toUpperCase()} ${path} documents ${status}, which no test produced`);
      }
    }
  }
  return problems;
}

function logFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    return statSync(file).isDirectory() ? logFiles(file) : [file];
  });
}

/** Every access line of every file under logDir, streamed: the logs of a whole suite are large. */
async function readAccessLines(logDir) {
  const lines = [];
  for (const file of logFiles(logDir)) {
    const source = relative(logDir, file);
    const reader = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
    for await (const text of reader) {
      // Cheap filter first: most lines are not access lines.
      if (!text.includes('request completed')) continue;
      const line = accessLine(text);
      if (line) lines.push({ ...line, source });
    }
  }
  return lines;
}

export default async function documentedStatuses({ logDir, fullSuite }) {
  const documentFile = join(dirname(logDir), 'openapi.json');
  if (!existsSync(documentFile)) {
    // A filtered run without the api-docs spec has nothing to compare against.
    return fullSuite ? [`${documentFile} is missing: test/e2e/api-docs.e2e.spec.ts writes it when FETCHER_TEST_LOG_DIR is set`] : [];
  }
  const document = JSON.parse(readFileSync(documentFile, 'utf8'));
  const lines = await readAccessLines(logDir);
  if (lines.length === 0) return [`no access lines ("request completed") in ${logDir}: is the access log written there?`];
  return checkDocumentedStatuses({ document, lines, fullSuite });
}
