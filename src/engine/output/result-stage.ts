import type { Writable } from 'node:stream';
import { EngineOptionsError } from '../errors/engine-errors.js';
import type { ExtractSink } from '../extract-request.js';
import { isPerTable, type ResultOutput } from '../formats/output-format.js';
import { partPath, type PartName, type PartSink, type PartTarget, type ResultPart } from '../formats/result-parts.js';
import { TABLE_ENCODERS } from '../formats/table-encoders.js';
import type { SealingKeys } from '../result/result-encoding.js';
import { ResultSealer, ResultWriter } from '../result/result-sealer.js';
import type { ResultUpload } from '../result/result-upload.js';
import { CompressedOutput } from './compressed-output.js';
import { JsonDocumentLayout, NdjsonDocumentLayout, type BytesListener, type DocumentOutput } from './document-layout.js';
import { PartsLayout } from './parts-layout.js';
import type { ResultLayout } from './result-layout.js';
import { isPartSink, isResultUpload, MemoryTarget, writableUpload } from './result-targets.js';

export interface StagedOutput {
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly hmac?: string;
  readonly storedBytes: number;
  readonly bytes?: Buffer;
  readonly parts?: readonly (ResultPart & { readonly bytes?: Buffer })[];
}

/** An extraction's output while it is written: the layout the executor feeds, and its end either way. */
export interface ResultStage {
  readonly layout: ResultLayout;
  finish(): Promise<StagedOutput>;
  /** Discards what is being written; never throws. */
  abort(): Promise<void>;
}

export interface StageOptions {
  readonly output: ResultOutput;
  /** Absent: the bytes are kept in memory and returned. */
  readonly sink?: ExtractSink;
  readonly maxBytes: number;
  readonly seal?: SealingKeys;
  readonly onBytes?: BytesListener;
}

/** The layout and writers for `output` into `sink`; refuses a sink of the wrong shape for the format. */
export function openStage(options: StageOptions): ResultStage {
  const { output, sink } = options;
  const perTable = isPerTable(output);
  if (sink !== undefined && perTable !== isPartSink(sink)) {
    throw new EngineOptionsError(
      perTable
        ? `output.format ${output.format} writes one part per table: give a PartSink (openPart, openManifest), or no sink`
        : `output.format ${output.format} writes one object: give a Writable or an upload, not a PartSink`,
      { fields: { 'output.format': 'does not fit the sink given' } },
    );
  }
  const openWriter = (upload: ResultUpload, maxPlaintextBytes: number): ResultWriter =>
    options.seal === undefined
      ? new ResultWriter({ maxPlaintextBytes, upload })
      : new ResultSealer({ ...options.seal, maxPlaintextBytes, upload });
  return perTable ? partsStage(options, openWriter) : documentStage(options, openWriter);
}

/** Aborts a sink nothing was staged into yet (a refused request): a Writable is destroyed. */
export async function abortSink(sink: ExtractSink | undefined): Promise<void> {
  if (sink === undefined || isPartSink(sink)) return;
  await (isResultUpload(sink) ? sink : writableUpload(sink)).abort();
}

function documentStage(options: StageOptions, openWriter: (upload: ResultUpload, maxBytes: number) => ResultWriter): ResultStage {
  const { output, sink } = options;
  const memory = sink === undefined ? new MemoryTarget() : undefined;
  const upload = memory ?? (isResultUpload(sink as ExtractSink) ? (sink as ResultUpload) : writableUpload(sink as Writable));
  const writer = openWriter(upload, options.maxBytes);
  const compressed = output.compression === 'none' ? undefined : new CompressedOutput(output.compression, writer);
  const next = compressed ?? writer;
  const out: DocumentOutput = {
    write: (chunk) => next.write(chunk),
    // The limit counts what is stored: the sealer's plaintext, after compression.
    get countedBytes() {
      return writer.sizeBytes;
    },
  };
  const layout = output.format === 'ndjson' ? new NdjsonDocumentLayout(out, options.onBytes) : new JsonDocumentLayout(out, options.onBytes);
  return {
    layout,
    finish: async () => {
      await compressed?.end();
      const written = await writer.finish();
      const bytes = memory?.contents();
      return { ...written, ...(bytes === undefined ? {} : { bytes }) };
    },
    abort: async () => {
      compressed?.abort();
      await writer.abort();
    },
  };
}

function partsStage(options: StageOptions, openWriter: (upload: ResultUpload, maxBytes: number) => ResultWriter): ResultStage {
  const encoder = TABLE_ENCODERS[options.output.format];
  if (encoder === undefined) {
    throw new EngineOptionsError(`output.format ${options.output.format} is not available in this build`, {
      fields: { 'output.format': 'is not available in this build' },
    });
  }
  const memory = options.sink === undefined ? new MemoryParts() : undefined;
  const layout = new PartsLayout({
    output: options.output,
    sink: memory ?? (options.sink as PartSink),
    encoder,
    openWriter,
    maxBytes: options.maxBytes,
    onBytes: options.onBytes,
  });
  return {
    layout,
    finish: async () => {
      const { manifest, parts, storedBytes } = await layout.finish();
      if (memory === undefined) return { ...manifest, storedBytes, parts };
      return { ...manifest, storedBytes, parts: memory.withBytes(parts), bytes: memory.manifest.contents() };
    },
    abort: () => layout.abort(),
  };
}

/** The parts of an extraction without a sink: each kept in memory, bounded by the result limit. */
class MemoryParts implements PartSink {
  readonly manifest = new MemoryTarget();
  private readonly targets = new Map<string, MemoryTarget>();

  openPart(part: PartName): PartTarget {
    const path = partPath(part);
    const upload = new MemoryTarget();
    this.targets.set(path, upload);
    return { path, upload };
  }

  openManifest(): ResultUpload {
    return this.manifest;
  }

  withBytes(parts: readonly ResultPart[]): (ResultPart & { readonly bytes: Buffer })[] {
    return parts.map((part) => ({ ...part, bytes: (this.targets.get(part.path) as MemoryTarget).contents() }));
  }
}
