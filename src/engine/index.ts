/**
 * `fetcher/engine`: Fetcher's extraction engine as a library (docs/engine.md). Nothing here loads
 * Nest, a job store, a queue or a broker; each database driver loads when a datasource of its
 * engine is first used.
 */
export { createEngine, Engine, type DiscoveredSchema, type DiscoveredTable, type ProbeOptions } from './engine.js';
export type { EgressOptions, EngineOptions } from './engine-options.js';
export type {
  DatasourceInput,
  ExtractRequest,
  ExtractResult,
  ExtractSink,
  OutputOptions,
  PlannedTable,
  ProgressEvent,
  TableStatus,
} from './extract-request.js';
export type { DatasourceDescriptor } from './datasources/datasource-descriptor.js';
export { parseDatasourceUrl, redactUrl, type ParsedDatasourceUrl } from './datasources/datasource-url.js';
export type {
  DataRequestInput,
  DataRequestLimits,
  ExtractionCeilings,
  FilterCondition,
  Filters,
  MappedFields,
} from './request/data-request.js';
export { DEFAULT_CEILINGS, FILTER_OPERATORS } from './request/data-request.js';
export type { CursorMark, IncrementalOutcome, IncrementalRequest, StreamMarks, TableRange } from './request/incremental-request.js';
export { CURSOR_KINDS, type CursorKind } from './incremental/cursor-range.js';
export { ENGINE_FACTS, type EngineType } from './connectors/shared/engine-facts.js';
export { FetCode, FET_CATALOGUE } from './errors/fet-code.js';
export { FetcherError, type ErrorDetail } from './errors/fetcher-error.js';
export {
  CatalogTooLargeError,
  DatasourceProbeError,
  EgressRefusedError,
  EngineOptionsError,
  ExtractionError,
  InvalidDatasourceError,
  ResultCodecError,
  ResultTooLargeError,
} from './errors/engine-errors.js';
export { DataRequestError } from './request/data-request.error.js';
export { EgressGuard } from './egress/egress-guard.js';
export type { AddressResolver } from './egress/address-resolver.js';
export type { SchemaCache } from './cache/schema-cache.js';
export { MemorySchemaCache } from './cache/schema-cache.js';
export type { SchemaSnapshot, TableInfo, ColumnInfo } from './connectors/shared/engine-connector.js';
export type { EngineLogger, LogFields } from './support/engine-logger.js';
export type { EngineTracer, EngineSpan, EngineOpenSpan, SpanAttributes } from './tracing/engine-tracer.js';
export type { ResultUpload } from './result/result-upload.js';
export {
  OUTPUT_COMPRESSIONS,
  OUTPUT_FORMATS,
  type OutputCompression,
  type OutputFormat,
  type ResultOutput,
} from './formats/output-format.js';
export {
  partFileName,
  partPath,
  type PartName,
  type PartSink,
  type PartTarget,
  type ResultManifest,
  type ResultPart,
} from './formats/result-parts.js';
export type { SealingKeys } from './result/result-encoding.js';
export { deriveResultKeys, type ResultKeys } from './crypto/key-derivation.js';
export { openResult, openResultWithKeys, type OpenedResult } from './result/result-opener.js';
export { ResultStreamOpener, ResultVerificationError, type ExpectedPlaintext } from './result/result-stream-opener.js';
