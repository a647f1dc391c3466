import {
  FILTER_OPERATORS,
  MAX_VALUES_PER_OPERATOR,
  WILDCARD,
  type DataRequestInput,
  type DataRequestLimits,
  type ExtractionCeilings,
  type FilterOperator,
  type MappedFields,
} from './data-request.js';
import { DataRequestError, type RequestProblem } from './data-request.error.js';
import { validateIncremental } from './incremental.validator.js';

const EXACTLY_ONE: ReadonlySet<FilterOperator> = new Set(['gt', 'gte', 'lt', 'lte', 'like']);
const LIMIT_NAMES = [
  'maxDatasources',
  'maxTablesPerDatasource',
  'maxFieldsPerTable',
  'maxParallelDatasources',
  'timeoutMs',
  'maxResultBytes',
] as const satisfies readonly (keyof DataRequestLimits)[];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isBlank = (value: string) => value.trim() === '';

/**
 * Names are looked up as own properties only, so `constructor` or `toString` are ordinary
 * names. `__proto__` (as a whole name or as a part of `schema.table`, in any case) is refused:
 * wherever it became a key (`public.__proto__` is keyed `__proto__`) an assignment would drop it.
 */
const isForbiddenName = (name: string) => name.split('.').some((part) => part.toLowerCase() === '__proto__');
const forbiddenNameMessage = (name: string) => `'${name}' cannot be used as a name: '__proto__' is refused`;

/** The ceilings of this job: the engine's, lowered by `dataRequest.limits`. */
export function effectiveLimits(ceilings: ExtractionCeilings, requested: DataRequestLimits | null | undefined): ExtractionCeilings {
  const out = { ...ceilings };
  for (const name of LIMIT_NAMES) {
    const value = requested?.[name];
    if (typeof value === 'number') out[name] = value;
  }
  return out;
}

/**
 * Shape and limit checks of a data request (docs/api.md, "The data request"). Collects every
 * problem, then throws one DataRequestError: `limit_exceeded` when only count limits are exceeded,
 * `invalid` otherwise; `problems` lists each one.
 */
export function validateDataRequest(request: DataRequestInput, ceilings: ExtractionCeilings): void {
  if (!isPlainObject(request)) {
    const message = 'dataRequest must be an object';
    throw new DataRequestError('invalid', message, { dataRequest: message }, [{ type: 'invalid_shape', message }]);
  }
  const problems: RequestProblem[] = [];
  const fields: Record<string, string> = {};
  const add = (detail: RequestProblem, path: string, message: string) => {
    problems.push({ ...detail, message });
    fields[path] ??= message;
  };

  const requestedLimits: unknown = request.limits;
  if (requestedLimits !== undefined && requestedLimits !== null && !isPlainObject(requestedLimits)) {
    add({ type: 'invalid_limit' }, 'dataRequest.limits', 'dataRequest.limits must be an object');
  }
  for (const name of LIMIT_NAMES) {
    const value = isPlainObject(requestedLimits) && Object.hasOwn(requestedLimits, name) ? requestedLimits[name] : undefined;
    if (value === undefined) continue;
    const path = `dataRequest.limits.${name}`;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      add({ type: 'invalid_limit' }, path, `${path} must be a positive integer`);
    } else if (value > ceilings[name]) {
      add({ type: 'invalid_limit' }, path, `${path} must not exceed ${ceilings[name]}`);
    }
  }
  // Without problems every requested limit was just checked to be a positive integer in range.
  const limits = effectiveLimits(ceilings, problems.length > 0 ? undefined : (requestedLimits as DataRequestLimits | undefined));

  // Read as the type it should be; every datasource, table and field list is checked below.
  const mapped = (isPlainObject(request.mappedFields) ? request.mappedFields : {}) as MappedFields;
  if (!isPlainObject(request.mappedFields)) {
    add({ type: 'invalid_shape' }, 'dataRequest.mappedFields', 'mappedFields must be an object of datasources');
  }
  const configNames = Object.keys(mapped);
  if (isPlainObject(request.mappedFields) && configNames.length === 0)
    add({ type: 'invalid_shape' }, 'dataRequest.mappedFields', 'mappedFields cannot be empty');
  if (configNames.length > limits.maxDatasources) {
    add(
      { type: 'limit_exceeded' },
      'dataRequest.mappedFields',
      `maximum ${limits.maxDatasources} datasources allowed per job, got ${configNames.length}`,
    );
  }
  for (const configName of configNames) {
    const tables = mapped[configName];
    const base = `dataRequest.mappedFields.${configName}`;
    if (isBlank(configName)) add({ type: 'invalid_shape' }, base, 'datasource config name cannot be empty or whitespace-only');
    if (isForbiddenName(configName)) add({ type: 'invalid_shape', datasource: configName }, base, forbiddenNameMessage(configName));
    if (!isPlainObject(tables) || Object.keys(tables).length === 0) {
      add({ type: 'invalid_shape', datasource: configName }, base, `datasource '${configName}' must map at least one table`);
      continue;
    }
    const tableNames = Object.keys(tables);
    if (tableNames.length > limits.maxTablesPerDatasource) {
      add(
        { type: 'limit_exceeded', datasource: configName },
        base,
        `maximum ${limits.maxTablesPerDatasource} tables allowed per datasource, got ${tableNames.length} for '${configName}'`,
      );
    }
    for (const table of tableNames) {
      validateFieldList(configName, table, tables[table], limits.maxFieldsPerTable, add);
    }
  }
  validateFilters(request.filters, mapped, limits.maxFieldsPerTable, add);
  validateIncremental(request.incremental, request.mappedFields, request.filters, add);

  if (problems.length === 0) return;
  const onlyCounts = problems.every((problem) => problem.type === 'limit_exceeded');
  throw new DataRequestError(
    onlyCounts ? 'limit_exceeded' : 'invalid',
    problems.length === 1
      ? (problems[0].message as string)
      : `${problems.length} problems in dataRequest: ${problems.map((p) => p.message).join('; ')}`,
    fields,
    problems,
  );
}

type AddProblem = (detail: RequestProblem, path: string, message: string) => void;

function validateFieldList(configName: string, table: string, list: unknown, maxFields: number, add: AddProblem): void {
  const path = `dataRequest.mappedFields.${configName}.${table}`;
  const at = { datasource: configName, table };
  if (isBlank(table)) return add({ type: 'invalid_shape', ...at }, path, `table name cannot be empty in '${configName}'`);
  if (isForbiddenName(table)) return add({ type: 'invalid_shape', ...at }, path, forbiddenNameMessage(table));
  if (!Array.isArray(list) || list.length === 0) {
    return add({ type: 'invalid_shape', ...at }, path, `field list of '${configName}.${table}' must be a non-empty array`);
  }
  if (list.length > maxFields) {
    add(
      { type: 'limit_exceeded', ...at },
      path,
      `maximum ${maxFields} fields allowed per table, got ${list.length} for '${configName}.${table}'`,
    );
  }
  const seen = new Set<string>();
  for (const field of list) {
    if (typeof field !== 'string' || isBlank(field)) {
      add({ type: 'invalid_shape', ...at }, path, `field names of '${configName}.${table}' must be non-empty strings`);
      continue;
    }
    if (isForbiddenName(field)) add({ type: 'invalid_shape', ...at, field }, path, forbiddenNameMessage(field));
    if (seen.has(field)) add({ type: 'invalid_shape', ...at, field }, path, `field '${field}' is listed twice in '${configName}.${table}'`);
    seen.add(field);
  }
  if (seen.has(WILDCARD) && list.length > 1) {
    add({ type: 'invalid_shape', ...at, field: WILDCARD }, path, `"*" must be the only entry of '${configName}.${table}'`);
  }
}

function validateFilters(filters: unknown, mapped: MappedFields, maxFields: number, add: AddProblem): void {
  if (filters === undefined || filters === null) return;
  if (!isPlainObject(filters)) return add({ type: 'invalid_filter' }, 'dataRequest.filters', 'filters must be an object of datasources');
  for (const [configName, tables] of Object.entries(filters)) {
    const base = `dataRequest.filters.${configName}`;
    const mappedTables = Object.hasOwn(mapped, configName) ? mapped[configName] : undefined;
    if (!isPlainObject(mappedTables)) {
      add(
        { type: 'invalid_filter', datasource: configName },
        base,
        `filter references datasource '${configName}', which is not in mappedFields`,
      );
      continue;
    }
    if (!isPlainObject(tables)) {
      add({ type: 'invalid_filter', datasource: configName }, base, `filters of '${configName}' must be an object of tables`);
      continue;
    }
    for (const [table, columns] of Object.entries(tables)) {
      const at = { datasource: configName, table };
      const tablePath = `${base}.${table}`;
      if (!Object.hasOwn(mappedTables, table)) {
        add({ type: 'invalid_filter', ...at }, tablePath, `filter references table '${configName}.${table}', which is not in mappedFields`);
        continue;
      }
      if (!isPlainObject(columns)) {
        add({ type: 'invalid_filter', ...at }, tablePath, `filters of '${configName}.${table}' must be an object of fields`);
        continue;
      }
      const fieldNames = Object.keys(columns);
      if (fieldNames.length > maxFields) {
        add(
          { type: 'limit_exceeded', ...at },
          tablePath,
          `maximum ${maxFields} filter fields allowed per table, got ${fieldNames.length} for '${configName}.${table}'`,
        );
      }
      for (const field of fieldNames) validateCondition(at, field, columns[field], `${tablePath}.${field}`, add);
    }
  }
}

function validateCondition(
  at: { datasource: string; table: string },
  field: string,
  condition: unknown,
  path: string,
  add: AddProblem,
): void {
  const where = `'${at.datasource}.${at.table}.${field}'`;
  if (isBlank(field))
    return add({ type: 'invalid_filter', ...at }, path, `filter field name cannot be empty in '${at.datasource}.${at.table}'`);
  if (isForbiddenName(field)) return add({ type: 'invalid_filter', ...at, field }, path, forbiddenNameMessage(field));
  if (!isPlainObject(condition) || Object.keys(condition).length === 0) {
    return add({ type: 'invalid_filter', ...at, field }, path, `filter on ${where} must be an object with at least one operator`);
  }
  for (const [operator, values] of Object.entries(condition)) {
    const detail = { type: 'invalid_filter', ...at, field, operator };
    const opPath = `${path}.${operator}`;
    if (!(FILTER_OPERATORS as readonly string[]).includes(operator)) {
      add(detail, opPath, `unknown operator '${operator}' on ${where}; use one of ${FILTER_OPERATORS.join(', ')}`);
      continue;
    }
    if (!Array.isArray(values)) {
      add(detail, opPath, `operator '${operator}' on ${where} takes an array of values`);
      continue;
    }
    if (values.some((value) => value !== null && !['string', 'number', 'boolean'].includes(typeof value))) {
      add(detail, opPath, `operator '${operator}' on ${where} takes only strings, numbers, booleans or null`);
      continue;
    }
    const op = operator as FilterOperator;
    if (values.length > MAX_VALUES_PER_OPERATOR) {
      add(
        { ...detail, type: 'limit_exceeded' },
        opPath,
        `operator '${op}' on ${where} takes at most ${MAX_VALUES_PER_OPERATOR} values, got ${values.length}`,
      );
    } else if (EXACTLY_ONE.has(op) && values.length !== 1) {
      add(detail, opPath, `operator '${op}' on ${where} takes exactly 1 value, got ${values.length}`);
    } else if (op === 'between' && values.length !== 2) {
      add(detail, opPath, `operator 'between' on ${where} takes exactly 2 values, got ${values.length}`);
    } else if (values.length === 0) {
      add(detail, opPath, `operator '${op}' on ${where} takes at least 1 value`);
    } else if (['gt', 'gte', 'lt', 'lte', 'between', 'like'].includes(op) && values.includes(null)) {
      add(detail, opPath, `operator '${op}' on ${where} cannot compare with null`);
    } else if (op === 'like' && typeof values[0] !== 'string') {
      add(detail, opPath, `operator 'like' on ${where} takes a string pattern`);
    }
  }
}
