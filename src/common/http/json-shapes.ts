import { FILTER_OPERATORS, MAX_VALUES_PER_OPERATOR, type FilterOperator } from '../../engine/request/data-request.js';

/**
 * Schemas of the free-form JSON members (maps keyed by datasource, table, field), written out so a
 * generated client gets their real types. A bare `type: object` becomes `Record<string, never>` in
 * openapi-typescript and friends: every map here says what its values are (`additionalProperties`).
 * Plain objects, not classes: @nestjs/swagger copies them into the document as they are.
 */
type Schema = Record<string, unknown>;

/** `byDatasource(byTable(x))`: configName → table → x. */
export const byDatasourceAndTable = (value: Schema): Schema => ({
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: value },
});

/** mappedFields[configName][table] = [field, …], ["*"] for every column (the data-request validator's shape). */
export const MAPPED_FIELDS_SCHEMA = byDatasourceAndTable({ type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 });

const SCALAR: Schema = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };
const SCALAR_OR_NULL: Schema = { ...SCALAR, nullable: true };

/** Each operator's value list, exactly as the data-request validator accepts it. */
const OPERATOR_VALUES: Record<FilterOperator, Schema> = {
  eq: { type: 'array', items: SCALAR_OR_NULL, minItems: 1, maxItems: MAX_VALUES_PER_OPERATOR },
  ne: { type: 'array', items: SCALAR_OR_NULL, minItems: 1, maxItems: MAX_VALUES_PER_OPERATOR },
  in: { type: 'array', items: SCALAR_OR_NULL, minItems: 1, maxItems: MAX_VALUES_PER_OPERATOR },
  nin: { type: 'array', items: SCALAR_OR_NULL, minItems: 1, maxItems: MAX_VALUES_PER_OPERATOR },
  gt: { type: 'array', items: SCALAR, minItems: 1, maxItems: 1 },
  gte: { type: 'array', items: SCALAR, minItems: 1, maxItems: 1 },
  lt: { type: 'array', items: SCALAR, minItems: 1, maxItems: 1 },
  lte: { type: 'array', items: SCALAR, minItems: 1, maxItems: 1 },
  between: { type: 'array', items: SCALAR, minItems: 2, maxItems: 2, description: '[low, high], both inclusive.' },
  like: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 1, description: 'One SQL LIKE pattern (% and _).' },
};

/** One field's condition: at least one operator, each with its value list; the conditions are ANDed. */
export const FILTER_CONDITION_SCHEMA: Schema = {
  type: 'object',
  properties: Object.fromEntries(FILTER_OPERATORS.map((operator) => [operator, OPERATOR_VALUES[operator]])),
  additionalProperties: false,
  minProperties: 1,
};

/** filters[configName][table][field] = {operator: [values…]}. */
export const FILTERS_SCHEMA = byDatasourceAndTable({ type: 'object', additionalProperties: FILTER_CONDITION_SCHEMA });

/** A job's metadata: free-form JSON with the product in `source`. */
export const JOB_METADATA_SCHEMA: Schema = {
  type: 'object',
  properties: { source: { type: 'string', minLength: 1, example: 'reporter', description: 'The product that owns the job.' } },
  required: ['source'],
  additionalProperties: true,
};

/** A connection's metadata: free-form JSON object. */
export const FREE_OBJECT_SCHEMA: Schema = { type: 'object', additionalProperties: true };

/** rowCounts[configName][table] = rows. */
export const ROW_COUNTS_SCHEMA = byDatasourceAndTable({ type: 'integer', minimum: 0 });

/** JSON path → what is wrong with it. */
export const FIELD_PROBLEMS_SCHEMA: Schema = { type: 'object', additionalProperties: { type: 'string' } };

/** A JSON result: configName → table → rows, each row column → value (any JSON). */
export const JSON_RESULT_SCHEMA = byDatasourceAndTable({ type: 'array', items: { type: 'object', additionalProperties: true } });
