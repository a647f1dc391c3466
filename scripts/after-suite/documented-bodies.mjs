import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * After the suite: every answer the tests got, checked against the response schema the API
 * document gives its (operation, status). test/helpers/response-recorder.ts writes one JSON line
 * per answer (method, concrete path, status, content type, JSON body) under `<run dir>/responses/`;
 * the api-docs e2e spec writes the served document to `<run dir>/openapi.json`.
 *
 * Validated with Ajv 8 (+ ajv-formats), after turning the document's OpenAPI 3.0 schemas into JSON
 * Schema (`nullable` as a `null` alternative, which is all 3.0 adds to the JSON Schema subset the
 * document uses). A JSON body is validated; any other body only has its content type compared
 * with the documented ones. Answers of routes not in the document (/metrics, /swagger*) and of
 * statuses it does not list are left to documented-statuses.
 *
 * Run by hand on a run directory: `node scripts/after-suite/documented-bodies.mjs <run dir>`.
 */

const UNDOCUMENTED_ROUTES = [/^\/metrics$/, /^\/swagger(-json)?(\/.*)?$/];
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** OpenAPI 3.0 schema → JSON Schema (draft 7 as Ajv reads it): `nullable: true` becomes a null alternative. */
export function jsonSchemaOf(node) {
  if (Array.isArray(node)) return node.map(jsonSchemaOf);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    // `example`/`examples` values are data, not schemas: copied as they are.
    out[key] = key === 'example' || key === 'examples' || key === 'enum' || key === 'default' ? value : jsonSchemaOf(value);
  }
  if (out.nullable !== true) {
    delete out.nullable;
    return out;
  }
  delete out.nullable;
  if (typeof out.type === 'string' && Object.keys(out).every((key) => !['allOf', 'anyOf', 'oneOf', '$ref'].includes(key))) {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  const { description, example, ...rest } = out;
  return { ...(description ? { description } : {}), ...(example !== undefined ? { example } : {}), anyOf: [rest, { type: 'null' }] };
}

/** `/v1/fetcher/{id}` → a RegExp for concrete paths; literal templates are tried before those with parameters. */
function pathMatchers(paths) {
  return Object.keys(paths)
    .map((template) => {
      const params = (template.match(/\{[^}]+\}/g) ?? []).length;
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : RegExp.escape(part)))
        .join('');
      return { template, params, regex: new RegExp(`^${source}/?$`) };
    })
    .sort((a, b) => a.params - b.params || b.template.length - a.template.length);
}

const mediaType = (contentType) => (contentType ?? '').split(';')[0].trim().toLowerCase();
const isJson = (type) => /^application\/(.+\+)?json$/.test(type);

/** The documented response of a status: exact, then `4XX`, then `default`. */
function responseOf(operation, status) {
  const responses = operation?.responses ?? {};
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

/**
 * Ajv's errors without the noise of the `null` alternative a nullable member became: its "must be
 * null" and the anyOf summary, when the other branch says what is wrong.
 */
function meaningful(errors) {
  const rest = errors.filter((error) => !(error.keyword === 'type' && error.params?.type === 'null'));
  return rest.filter(
    (error) =>
      error.keyword !== 'anyOf' ||
      !rest.some((other) => other !== error && other.keyword !== 'anyOf' && other.instancePath.startsWith(error.instancePath)),
  );
}

const escapePointer = (text) => text.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The problems of one run: `document` the OpenAPI object, `records` the recorded answers
 * (`{method, path, status, contentType, body?, skipped?, source?}`).
 */
export function checkDocumentedBodies({ document, records }) {
  const converted = jsonSchemaOf(document);
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, logger: false });
  addFormats(ajv);
  ajv.addSchema({ ...converted, $id: 'openapi' });
  const matchers = pathMatchers(document?.paths ?? {});
  const validators = new Map();
  const found = new Map();
  const report = (record, template, text) => {
    const key = `${record.method.toUpperCase()} ${template} ${record.status}: ${text}`;
    const seen = found.get(key) ?? { count: 0, example: record };
    seen.count += 1;
    found.set(key, seen);
  };
  for (const record of records) {
    if (UNDOCUMENTED_ROUTES.some((pattern) => pattern.test(record.path))) continue;
    const lower = record.method.toLowerCase();
    if (lower === 'head' || lower === 'options') continue;
    if (!METHODS.has(lower)) continue;
    const match = matchers.find(({ template, regex }) => regex.test(record.path) && document.paths[template]?.[lower]);
    if (!match) continue;
    const response = responseOf(document.paths[match.template][lower], record.status);
    // An undocumented status is documented-statuses' problem, not this check's.
    if (!response) continue;
    const type = mediaType(record.contentType);
    const content = response.content ?? {};
    const documentedTypes = Object.keys(content).map(mediaType);
    const hasBody = record.body !== undefined || record.skipped !== undefined || (type !== '' && record.status !== 204);
    if (!hasBody) continue;
    if (documentedTypes.length === 0) {
      if (type !== '') report(record, match.template, `a ${type} body, where the document gives none`);
      continue;
    }
    const documented = documentedTypes.find((candidate) => candidate === type || candidate === '*/*');
    if (!documented) {
      report(record, match.template, `content type ${type || '(none)'} is not documented (${documentedTypes.join(', ')})`);
      continue;
    }
    if (!isJson(type) || record.body === undefined) continue;
    const mediaKey = Object.keys(content).find((key) => mediaType(key) === documented);
    if (!content[mediaKey]?.schema) continue;
    const ref = `openapi#/paths/${escapePointer(match.template)}/${lower}/responses/${Object.keys(
      document.paths[match.template][lower].responses,
    ).find((key) => document.paths[match.template][lower].responses[key] === response)}/content/${escapePointer(mediaKey)}/schema`;
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      validators.set(ref, validate);
    }
    if (validate(record.body)) continue;
    for (const error of meaningful(validate.errors ?? [])) {
      const extra = error.keyword === 'additionalProperties' ? ` (${error.params.additionalProperty})` : '';
      report(record, match.template, `${error.instancePath || '/'} ${error.message}${extra}`);
    }
  }
  return [...found].map(([key, { count, example }]) => {
    const where = example.source ? ` in ${example.source}` : '';
    return `${key} (${count}×, e.g. ${example.path}${where})`;
  });
}

/** Every record under `<run dir>/responses`, streamed. */
async function readRecords(dir) {
  const records = [];
  if (!existsSync(dir)) return records;
  for (const name of readdirSync(dir).sort()) {
    const reader = createInterface({ input: createReadStream(join(dir, name), 'utf8'), crlfDelay: Infinity });
    for await (const text of reader) {
      if (text.trim() === '') continue;
      try {
        records.push(JSON.parse(text));
      } catch {
        // A line cut by a killed test process: nothing to check.
      }
    }
  }
  return records;
}

export default async function documentedBodies({ runDir, logDir, fullSuite, root = process.cwd() }) {
  const dir = runDir ?? dirname(logDir);
  const documentFile = join(dir, 'openapi.json');
  if (!existsSync(documentFile)) {
    return fullSuite ? [`${documentFile} is missing: test/e2e/api-docs.e2e.spec.ts writes it when FETCHER_TEST_LOG_DIR is set`] : [];
  }
  const document = JSON.parse(readFileSync(documentFile, 'utf8'));
  const records = await readRecords(join(dir, 'responses'));
  if (records.length === 0)
    return [`no recorded answers in ${relative(root, join(dir, 'responses'))}: is test/helpers/response-recorder.ts loaded?`];
  return checkDocumentedBodies({ document, records });
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  const runDir = process.argv[2];
  if (!runDir) {
    console.error('usage: node scripts/after-suite/documented-bodies.mjs <run dir (holds openapi.json and responses/)>');
    process.exit(2);
  }
  const problems = await documentedBodies({ runDir: resolve(runDir), fullSuite: true });
  for (const problem of problems) console.error(`documented-bodies: ${problem}`);
  console.error(`documented-bodies: ${problems.length === 0 ? 'passed' : `${problems.length} problem(s)`}`);
  process.exit(problems.length === 0 ? 0 : 1);
}
