import type { Writable } from 'node:stream';
import type { DatasourceDescriptor } from './datasources/datasource-descriptor.js';
import type { DataRequestInput } from './request/data-request.js';
import type { SealingKeys } from './result/result-encoding.js';
import type { ResultUpload } from './result/result-upload.js';
import type { OutputCompression, OutputFormat } from './formats/output-format.js';
import type { PartSink, ResultPart } from './formats/result-parts.js';
import type { IncrementalOutcome, StreamMarks } from './request/incremental-request.js';

/** A connection URL (`postgres://…`, docs/engine.md lists the forms) or a descriptor object. */
export type DatasourceInput = string | DatasourceDescriptor;

export interface ExtractRequest {
  /** Each config name of `dataRequest.mappedFields` → where that datasource is; other entries are ignored. */
  readonly datasources: Readonly<Record<string, DatasourceInput>>;
  /** Exactly the service's `dataRequest`: mappedFields, filters, limits (docs/api.md, "The data request"). */
  readonly dataRequest: DataRequestInput;
  readonly output?: OutputOptions;
  /**
   * With `dataRequest.incremental`: the stream's committed marks, which each range starts above
   * (`marks[configName][tableKey]`); absent, every cursor table starts at its `initial` or at the
   * beginning. The new marks come back in `ExtractResult.incremental`: store them only once the
   * result is safely kept (docs/incremental.md).
   */
  readonly marks?: StreamMarks;
  /** Aborting stops the extraction: every session is closed, nothing is kept, the call rejects with FET-1105. */
  readonly signal?: AbortSignal;
  /** Told as the extraction goes; called synchronously, so keep it cheap. */
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Called between batches: throwing stops the extraction with that error (a memory guard of the caller's). */
  readonly checkpoint?: () => void;
}

export interface OutputOptions {
  /** `json` (default: one document, byte-identical to what Fetcher always wrote), `ndjson`, or one part per table: `csv`, `parquet`. */
  readonly format?: OutputFormat;
  /** `none` (default), `gzip`, or `zstd`; applied before sealing. */
  readonly compression?: OutputCompression;
  /**
   * Store the bytes sealed as the service stores them: base64(nonce ‖ AES-256-GCM ‖ tag) with an
   * HMAC-SHA256 of the plaintext (docs/value-mapping.md, "The stored object"). Give the master key
   * (32 bytes, or its base64 or hex text: the service's APP_ENC_KEY) or the two keys derived from it.
   */
  readonly seal?: { readonly masterKey: Buffer | string } | SealingKeys;
}

/**
 * Where the result goes: a Node Writable (a file, stdout, a socket) or an upload of the caller's own
 * for a one-object format (json, ndjson); a PartSink for a per-table one (csv, parquet).
 */
export type ExtractSink = Writable | ResultUpload | PartSink;

export interface ExtractResult {
  readonly format: OutputFormat;
  readonly compression: OutputCompression;
  readonly rowCount: number;
  /** Rows per datasource and table (result key). */
  readonly rowCounts: Record<string, Record<string, number>>;
  /**
   * Bytes of the object's plaintext: the document (compressed when asked), or for a per-table
   * format the manifest. The digests below are of the same bytes.
   */
  readonly sizeBytes: number;
  /** SHA-256 of the plaintext, lowercase hex. */
  readonly sha256: string;
  /** HMAC-SHA256 of the plaintext (lowercase hex): only when sealed, the job's `resultHmac`. */
  readonly hmac?: string;
  /** Without a sink: what was written (the plaintext, or the sealed object's text when sealed). */
  readonly bytes?: Buffer;
  /** Bytes handed to the sink (or held in `bytes`): the sealed object's size when sealed; for parts, every object's. */
  readonly storedBytes: number;
  /** Per-table formats: the parts in result order (what the manifest lists); without a sink each with its bytes. */
  readonly parts?: readonly (ResultPart & { readonly bytes?: Buffer })[];
  /** With `dataRequest.incremental`: each range read and the marks that follow. */
  readonly incremental?: IncrementalOutcome;
}

export type TableStatus = 'pending' | 'reading' | 'done';

/** One table of the extraction, as the plan lists it (sorted as the result). */
export interface PlannedTable {
  readonly datasource: string;
  readonly table: string;
  /** The datasource's type: `POSTGRESQL`, `MYSQL`, … */
  readonly engine: string;
}

export type ProgressEvent =
  /** Every datasource answered and the request fits its schema; no row has been read yet. */
  | { readonly type: 'planned'; readonly tables: readonly PlannedTable[] }
  | { readonly type: 'table'; readonly datasource: string; readonly table: string; readonly status: TableStatus; readonly rows: number }
  /** A batch of `rows` rows of one table; `totalRows` of the whole extraction so far. */
  | {
      readonly type: 'rows';
      readonly datasource: string;
      readonly table: string;
      readonly engine: string;
      readonly rows: number;
      readonly totalRows: number;
    }
  /** `bytes` of plaintext written; `engine` when they belong to a datasource's part of the document. */
  | { readonly type: 'bytes'; readonly bytes: number; readonly totalBytes: number; readonly engine?: string };
