import type { ResultUpload } from '../result/result-upload.js';
import { fileExtension, type OutputCompression, type OutputFormat, type ResultOutput } from './output-format.js';

/** One table's part, as the engine asks for a place to write it. */
export interface PartName {
  readonly datasource: string;
  readonly table: string;
  readonly format: OutputFormat;
  readonly compression: OutputCompression;
  /** `<table>.<ext>` with every character outside `[A-Za-z0-9_.-]` percent-encoded: safe in a path and an object key. */
  readonly fileName: string;
}

/** Where one part goes: its upload, and the path the manifest records for it. */
export interface PartTarget {
  readonly path: string;
  readonly upload: ResultUpload;
}

/**
 * The sink of a per-table result (csv, parquet): one upload per table, opened in result order just
 * before the part's first byte, and the manifest that lists them, written last. On any failure the
 * engine aborts every upload it opened; the sink's owner deletes what a completed one left.
 */
export interface PartSink {
  openPart(part: PartName): PartTarget;
  /** The manifest's upload: the one object a single-path consumer (resultPath, resultHmac) verifies. */
  openManifest(): ResultUpload;
}

/** A written part, as `result.parts`, the manifest and `job.completed` list it. */
export interface ResultPart {
  readonly datasource: string;
  readonly table: string;
  readonly path: string;
  readonly format: OutputFormat;
  readonly compression: OutputCompression;
  /** Bytes of the part's file as a consumer downloads and verifies it (after compression, before encryption). */
  readonly sizeBytes: number;
  readonly rowCount: number;
  /** SHA-256 of those bytes, lowercase hex. */
  readonly sha256: string;
  /** HMAC-SHA256 of those bytes (the result HMAC key), lowercase hex; only when sealed. */
  readonly hmac?: string;
}

/** The plaintext of a per-table result's manifest (compact JSON, members in this order). */
export interface ResultManifest {
  readonly version: 1;
  readonly format: OutputFormat;
  readonly compression: OutputCompression;
  readonly parts: readonly ResultPart[];
}

const UNSAFE_IN_NAME = /[^A-Za-z0-9_.-]|^\./g;

/**
 * `name` as one path segment and object-key segment: every byte outside `[A-Za-z0-9_.-]`, and a
 * leading dot, percent-encoded (so never `.`, `..`, a hidden name or a separator); decodeURIComponent
 * gives the name back.
 */
export function pathSegment(name: string): string {
  return Buffer.from(name, 'utf8')
    .toString('latin1')
    .replace(UNSAFE_IN_NAME, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** A part's file name: the result key made safe for paths and object keys, then the extension. */
export function partFileName(table: string, output: ResultOutput): string {
  return `${pathSegment(table)}.${fileExtension(output)}`;
}

/** Where a part sits under its result's folder or prefix: `<datasource>/<fileName>`, both segments safe. */
export function partPath(part: Pick<PartName, 'datasource' | 'fileName'>): string {
  return `${pathSegment(part.datasource)}/${part.fileName}`;
}

/** The manifest's bytes: compact JSON, parts in result order. */
export function manifestBytes(manifest: ResultManifest): Buffer {
  return Buffer.from(JSON.stringify(manifest), 'utf8');
}
