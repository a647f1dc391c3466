import { Semaphore } from '../concurrency/semaphore.js';
import type { ReadBudget } from '../connectors/shared/read-budget.js';
import { DatasourceQueryError } from '../errors/datasource-errors.js';
import { ExtractionError } from '../errors/engine-errors.js';
import { FetCode } from '../errors/fet-code.js';
import { FetcherError } from '../errors/fetcher-error.js';
import { NO_TRACING, type EngineTracer } from '../tracing/engine-tracer.js';
import { ATTR, SPAN } from '../tracing/span-names.js';
import { ChunkChannel } from './chunk-channel.js';
import type { DatasourcePlan, ExtractionPlan } from './extraction-plan.js';
import type { ResultLayout } from '../output/result-layout.js';

/** Bytes one datasource may buffer ahead of the writer before its cursor pauses. */
const CHANNEL_CAPACITY = 4 * 1024 * 1024;
/** Bytes of rows a connector may hold in one batch (see ReadBudget); rows per batch stay capped too. */
export const BATCH_BYTES = 4 * 1024 * 1024;
export const BATCH_ROWS = 2_000;

export interface ExecutionOptions {
  /** Between batches: throws to stop the extraction (the worker's memory guard). */
  readonly checkpoint?: () => void;
  /** Told of every table started and finished, rows read and bytes written. */
  readonly progress?: ProgressRecorder;
  /** One span per table read. */
  readonly tracer?: EngineTracer;
}

/** What the executor reports as it goes: plain counter updates, no I/O. */
export interface ProgressRecorder {
  tableStarted(configName: string, table: string): void;
  /** `engine`: the datasource's type (`POSTGRESQL`), for per-engine throughput. */
  rowsRead(configName: string, table: string, rows: number, engine: string): void;
  tableDone(configName: string, table: string): void;
  /** `engine`: of the datasource whose part of the result the bytes are; none for the punctuation between parts. */
  bytesWritten(bytes: number, engine?: string): void;
}

/** Where a layout writes bytes: awaited one write at a time. */
export interface ChunkWriter {
  /** Once it resolves the writer holds no reference to `chunk`: its memory may be reused. */
  write(chunk: string | Buffer): Promise<void>;
}

export interface ExtractionStats {
  readonly rowCount: number;
  readonly rowCounts: Record<string, Record<string, number>>;
  /** Per datasource and table key, the upper bound of each incremental read (null: nothing above its lower bound). */
  readonly upperBounds: Record<string, Record<string, string | null>>;
}

/**
 * Streams a planned extraction into `layout`, datasources by config name and tables by result key
 * (docs/value-mapping.md, "The result document"). Up to `maxParallelDatasources` datasources are
 * read at once; the one at the head of the output streams straight through, the others buffer a
 * bounded amount and then wait. The first failure cancels every reader and is rethrown once all of
 * them have stopped.
 */
export async function executePlan(
  plan: ExtractionPlan,
  layout: ResultLayout,
  signal: AbortSignal,
  options: ExecutionOptions = {},
): Promise<ExtractionStats> {
  const budget: ReadBudget = {
    batchBytes: BATCH_BYTES,
    batchRows: BATCH_ROWS,
    remainingBytes: () => plan.limits.maxResultBytes - layout.writtenBytes,
  };
  const run = new AbortController();
  const onAbort = () => run.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) run.abort(signal.reason);

  const slots = new Semaphore(Math.max(1, plan.limits.maxParallelDatasources));
  const channels = plan.datasources.map(() => new ChunkChannel(CHANNEL_CAPACITY));
  const rowCounts: Record<string, Record<string, number>> = {};
  const upperBounds: Record<string, Record<string, string | null>> = {};
  let failure: { error: unknown } | undefined;
  const failAll = (error: unknown) => {
    failure ??= { error };
    run.abort(error);
    for (const channel of channels) channel.fail(error);
  };

  const readers = plan.datasources.map(async (datasource, index) => {
    await slots.acquire();
    try {
      if (run.signal.aborted) throw run.signal.reason;
      const bounds: Record<string, string | null> = {};
      rowCounts[datasource.configName] = await readDatasource(datasource, layout, channels[index], run.signal, budget, options, bounds);
      if (Object.keys(bounds).length > 0) upperBounds[datasource.configName] = bounds;
      channels[index].close();
    } catch (error) {
      failAll(error);
    } finally {
      slots.release();
    }
  });

  try {
    await layout.begin();
    for (const [index, channel] of channels.entries()) {
      const datasource = plan.datasources[index];
      await layout.beginDatasource(datasource.configName, datasource.datasource.type, index);
      await writeDatasource(datasource, channel, layout);
      await layout.endDatasource();
    }
    await layout.end();
  } catch (error) {
    failAll(error);
  } finally {
    await Promise.allSettled(readers);
    signal.removeEventListener('abort', onAbort);
  }
  if (failure) throw failure.error;

  const rowCount = Object.values(rowCounts).reduce((sum, tables) => sum + Object.values(tables).reduce((a, b) => a + b, 0), 0);
  return { rowCount, rowCounts, upperBounds };
}

/** The writer's side of one datasource: what its reader queued, handed to the layout in order. */
async function writeDatasource(datasource: DatasourcePlan, channel: ChunkChannel, layout: ResultLayout): Promise<void> {
  let tables = 0;
  let batches = 0;
  for (let entry = await channel.next(); entry !== undefined; entry = await channel.next()) {
    switch (entry.kind) {
      case 'table':
        batches = 0;
        await layout.beginTable(
          {
            datasource: datasource.configName,
            table: entry.request.table.key,
            engine: datasource.datasource.type,
            columns: entry.request.columns,
          },
          tables++,
        );
        break;
      case 'rows':
        await layout.writeRows(entry.batch, batches++);
        entry.batch.release?.();
        break;
      case 'end':
        await layout.endTable(entry.rows);
        break;
    }
  }
}

async function readDatasource(
  plan: DatasourcePlan,
  layout: ResultLayout,
  channel: ChunkChannel,
  signal: AbortSignal,
  budget: ReadBudget,
  { checkpoint, progress, tracer = NO_TRACING }: ExecutionOptions,
  upperBounds: Record<string, string | null>,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const request of plan.tables) {
    const key = request.table.key;
    await channel.push({ kind: 'table', request });
    let rows = 0;
    progress?.tableStarted(plan.configName, key);
    const span = tracer.startSpan(SPAN.readTable, {
      [ATTR.datasource]: plan.configName,
      [ATTR.table]: key,
      [ATTR.engine]: plan.datasource.type,
    });
    const rowFrame = layout.rowFrame(plan.configName, key);
    const bounded = request.range ? { onRangeBound: (upper: string | null) => (upperBounds[key] = upper) } : {};
    try {
      for await (const batch of plan.session.readRows({ ...request, budget, ...(rowFrame ? { rowFrame } : {}), ...bounded }, signal)) {
        checkpoint?.();
        if (request.range && !Object.hasOwn(upperBounds, key)) throw unboundedRange(plan.configName, key);
        if (batch.rowCount === 0) continue;
        await channel.push({ kind: 'rows', batch });
        rows += batch.rowCount;
        progress?.rowsRead(plan.configName, key, batch.rowCount, plan.datasource.type);
      }
    } catch (error) {
      throw span.fail(readFailure(plan.configName, key, error, signal));
    } finally {
      span.end({ [ATTR.rows]: rows });
    }
    if (request.range && !Object.hasOwn(upperBounds, key)) throw unboundedRange(plan.configName, key);
    progress?.tableDone(plan.configName, key);
    counts[key] = rows;
    await channel.push({ kind: 'end', rows });
  }
  return counts;
}

/** A connector that read a range without saying its bound: its rows cannot be trusted to be the range's. */
function unboundedRange(configName: string, table: string): ExtractionError {
  return new ExtractionError(FetCode.Internal, `datasource '${configName}' read '${table}' without bounding its incremental range`);
}

function readFailure(configName: string, table: string, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof FetcherError) return signal.aborted ? signal.reason : error;
  const reason = error instanceof DatasourceQueryError ? error.message : 'the query failed';
  return new ExtractionError(FetCode.DatasourceQueryFailed, `datasource '${configName}' failed while reading '${table}': ${reason}`, {
    details: [{ type: 'query_failed', datasource: configName, table, message: reason }],
  });
}
