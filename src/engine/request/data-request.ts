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
  /** An incremental stream (docs/incremental.md); absent: every table is read in full. */
  readonly incremental?: unknown;
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

/**
 * The engine's limits when its caller sets none; a caller may only lower them (the service through
 * ENGINE_MAX_RESULT_BYTES, a library through createEngine's `limits`, a request through its own
 * `limits`). Documented in docs/request-limits.md.
 */
export const DEFAULT_CEILINGS: ExtractionCeilings = {
  maxDatasources: 10,
  maxTablesPerDatasource: 20,
  maxFieldsPerTable: 50,
  maxParallelDatasources: 4,
  timeoutMs: 5 * 60 * 1000,
  maxResultBytes: 256 * 1024 * 1024,
};
