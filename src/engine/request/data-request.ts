/** `mappedFields[configName][table] = [field, …]`; `["*"]` selects every column. */
export type MappedFields = Record<string, Record<string, string[]>>;

export const FILTER_OPERATORS = ['eq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'ne', 'like'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
export type FilterScalar = string | number | boolean | null;
export type FilterCondition = Partial<Record<FilterOperator, FilterScalar[]>>;

/** `filters[configName][table][field] = {op: [values…]}` */
export type Filters = Record<string, Record<string, Record<string, FilterCondition>>>;

export interface DataRequestLimits {
  maxDatasources?: number;
  maxTablesPerDatasource?: number;
  maxFieldsPerTable?: number;
  maxParallelDatasources?: number;
  timeoutMs?: number;
  maxResultBytes?: number;
}

export const WILDCARD = '*';

/**
 * Values one operator of one filter may list (docs/request-limits.md). Checked by the Manager;
 * the engines bind the list, and some cap parameters per statement (PostgreSQL at 65,535).
 */
export const MAX_VALUES_PER_OPERATOR = 10_000;

/** What a caller sends as `dataRequest`, before validation: any part may be missing or mistyped. */
export interface DataRequestInput {
  readonly mappedFields?: unknown;
  readonly filters?: unknown;
  readonly limits?: unknown;
}

/** The engine's ceilings of one job; `dataRequest.limits` may only lower them. */
export interface ExtractionCeilings {
  readonly maxDatasources: number;
  readonly maxTablesPerDatasource: number;
  readonly maxFieldsPerTable: number;
  readonly maxParallelDatasources: number;
  readonly timeoutMs: number;
  readonly maxResultBytes: number;
}
