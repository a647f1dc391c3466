import type { Readable } from 'node:stream';
import { Inject, Injectable, Logger, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import type { Principal } from '../../auth/principal.js';
import { FetCode } from '../../engine/errors/fet-code.js';
import { FetExceptionFilter } from '../../common/errors/fet-exception.filter.js';
import { FetcherError } from '../../engine/errors/fetcher-error.js';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { ResultVerificationError, type ExpectedPlaintext, type ResultStreamOpener } from '../../engine/result/result-stream-opener.js';
import { ResultStorageService } from '../../storage/result-storage.service.js';
import { StorageError } from '../../storage/storage.error.js';
import { httpTypeOf, isPerTable, type ResultOutput } from '../../engine/formats/output-format.js';
import type { JobRecord } from '../job.entity.js';
import { JobError } from '../job.error.js';
import { outputOf } from '../job-output.js';
import { jobLogFields, type JobLogFields } from '../job-log-fields.js';
import { JobRepository } from '../job.repository.js';
import { JobStatus } from '../job-status.js';
import { resultAvailability } from '../result-availability.js';
import type { ResultDownloadQuery } from './result-download.query.js';
import { findOwnedJob } from '../owned-job.js';
import { Clock } from '../../common/clock/clock.js';

/**
 * The sealed object is sent as the bytes it is: base64 text, but a client must not re-encode,
 * re-wrap or transcode it before verifying, so it is labelled as opaque bytes.
 */
export const RAW_RESULT_CONTENT_TYPE = 'application/octet-stream';
export const RESULT_HEADERS = { sha256: 'X-Result-Sha256', hmac: 'X-Result-Hmac', keyVersion: 'X-Result-Key-Version' } as const;
/** Headers of a successful answer, dropped again when the answer turns into an error envelope. */
const SUCCESS_ONLY_HEADERS = ['Content-Length', 'Content-Type', 'Content-Encoding', 'ETag', ...Object.values(RESULT_HEADERS)];
/** A per-table result's object at resultPath: its manifest, one JSON document. */
const MANIFEST_TYPE: ResultOutput = { format: 'json', compression: 'none' };

/** A download, ready to be returned by the controller once `headers` are set on the response. */
export interface ResultDownload {
  readonly file: StreamableFile;
  readonly headers: Readonly<Record<string, string>>;
}

/** One stored object of a result (the result, a manifest or a part) and what its job recorded of it. */
interface DownloadableResult extends ExpectedPlaintext {
  readonly path: string;
  readonly keyVersion: string;
  /** What the verified bytes are, for Content-Type and Content-Encoding. */
  readonly type: ResultOutput;
}

/** A part of a per-table result, as its route names it. */
export interface PartAddress {
  readonly datasource: string;
  readonly table: string;
}

/**
 * GET /v1/fetcher/{id}/result: a completed job's result (a per-table result's manifest), and
 * GET …/result/{datasource}/{table}: one of its parts; each verified on the way out, or as stored.
 */
@Injectable()
export class JobResultService {
  private readonly logger = new Logger(JobResultService.name);
  private readonly envelopes = new FetExceptionFilter();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobRepository,
    private readonly results: ResultStorageService,
    private readonly clock: Clock,
  ) {}

  /**
   * Everything that can fail before the first byte fails here, as a FET error: unknown job (or
   * another product's), not completed, deleted, object missing (502), store down (503).
   */
  async open(id: string, query: ResultDownloadQuery, principal: Principal): Promise<ResultDownload> {
    const job = await this.completedJob(id, principal);
    return this.download(jobLogFields(job), this.downloadable(job), query);
  }

  /** One part of a per-table result, exactly as `open` sends the result; 404 for a part the result does not list. */
  async openPart(id: string, address: PartAddress, query: ResultDownloadQuery, principal: Principal): Promise<ResultDownload> {
    const job = await this.completedJob(id, principal);
    const result = this.downloadable(job);
    const parts = job.resultParts ?? [];
    if (!isPerTable(outputOf(job)) || parts.length === 0) {
      throw new JobError(
        FetCode.NotFound,
        `the result of job ${id} is one ${outputOf(job).format} object and has no parts: GET …/result downloads it`,
      );
    }
    const ofDatasource = parts.filter((part) => part.datasource === address.datasource);
    if (ofDatasource.length === 0) {
      throw new JobError(FetCode.NotFound, `the result of job ${id} has no datasource ${JSON.stringify(address.datasource)}`, {
        details: [{ type: 'part_not_found', datasource: address.datasource, message: 'no part of the result is of this datasource' }],
      });
    }
    const part = ofDatasource.find((candidate) => candidate.table === address.table);
    if (part === undefined) {
      throw new JobError(
        FetCode.NotFound,
        `the result of job ${id} has no table ${JSON.stringify(address.table)} of datasource ${JSON.stringify(address.datasource)}`,
        { details: [{ type: 'part_not_found', ...address, message: 'no part of the result is of this table' }] },
      );
    }
    if (part.hmac === undefined) throw new JobError(FetCode.Internal, `job ${id} is completed but its part ${part.path} has no HMAC`);
    const { path, hmac, sha256, sizeBytes } = part;
    return this.download(jobLogFields(job), { path, hmac, sha256, sizeBytes, keyVersion: result.keyVersion, type: part }, query);
  }

  /** Exactly as JobService.get (findOwnedJob). */
  private completedJob(id: string, principal: Principal): Promise<JobRecord> {
    return findOwnedJob(this.jobs, id, principal);
  }

  /**
   * Everything that can fail before the first byte fails here, as a FET error: object missing (502),
   * store down (503). Raw: the stored object as it is; otherwise its verified plaintext, labelled as
   * what it is (a compressed one with its Content-Encoding, sent as stored: nothing here encodes it).
   */
  private async download(log: JobLogFields, result: DownloadableResult, query: ResultDownloadQuery): Promise<ResultDownload> {
    const headers = {
      [RESULT_HEADERS.sha256]: result.sha256,
      [RESULT_HEADERS.hmac]: result.hmac,
      [RESULT_HEADERS.keyVersion]: result.keyVersion,
      // Plaintext of another product's data: no shared cache may keep it.
      'Cache-Control': 'no-store',
    };
    if (query.raw) {
      const stored = await this.reading(log, () => this.results.readStoredStream(result.path));
      return { headers, file: this.streamed(log, stored.stream, RAW_RESULT_CONTENT_TYPE, stored.sizeBytes) };
    }
    const opened = await this.reading(log, () => this.results.openStream(result.path, result, result.keyVersion));
    const { contentType, contentEncoding } = httpTypeOf(result.type);
    return {
      headers: {
        ...headers,
        ETag: `"${result.sha256}"`,
        ...(contentEncoding === undefined ? {} : { 'Content-Encoding': contentEncoding }),
      },
      file: this.streamed(log, opened.plaintext, contentType, result.sizeBytes, opened.plaintext),
    };
  }

  private downloadable(job: JobRecord): DownloadableResult {
    switch (resultAvailability(job, this.config.results.retentionSeconds, this.clock.now())) {
      case 'not-completed':
        throw new JobError(
          FetCode.JobNotCompleted,
          job.status === JobStatus.Failed
            ? `job ${job.id} failed${job.error ? ` (${job.error.code})` : ''}: it has no result`
            : `job ${job.id} is ${job.status}: its result is not ready yet`,
        );
      case 'deleted':
        throw new JobError(FetCode.ResultDeleted, `the result of job ${job.id} was deleted (on request, or at the end of its retention)`);
      case 'available':
        break;
    }
    const { resultPath, resultHmac, resultSha256, resultSizeBytes } = job;
    if (!resultPath || !resultHmac || !resultSha256 || resultSizeBytes === null) {
      throw new JobError(FetCode.Internal, `job ${job.id} is completed but its record lacks the result's size or digests`);
    }
    // A result recorded before key versions were is opened with the current key.
    const keyVersion = job.resultKeyVersion ?? this.config.encryption.keyVersion;
    const output = outputOf(job);
    const type = isPerTable(output) ? MANIFEST_TYPE : output;
    return { path: resultPath, hmac: resultHmac, sha256: resultSha256, sizeBytes: resultSizeBytes, keyVersion, type };
  }

  /** The store's answer for a completed job: a missing object is the store's fault (502), not a 404. */
  private async reading<T>(log: JobLogFields, open: () => Promise<T>): Promise<T> {
    const id = log.jobId;
    try {
      return await open();
    } catch (error) {
      if (error instanceof StorageError && error.code === FetCode.NotFound) {
        this.logger.error(`result of job ${id}: the stored object is missing`, log);
        throw new StorageError(FetCode.StorageFailed, `the result object of job ${id} is missing from the store`);
      }
      if (error instanceof ResultVerificationError)
        this.logger.error(`result of job ${id}: verification failed (${error.check}): ${error.message}`, log);
      throw error;
    }
  }

  private streamed(log: JobLogFields, stream: Readable, type: string, length: number, opener?: ResultStreamOpener): StreamableFile {
    return new StreamableFile(stream, { type, length })
      .setErrorHandler((error, response) => this.failMidway(log, error, response as unknown as Response, length, opener))
      .setErrorLogger((error) => this.logger.warn(`result of job ${log.jobId}: sending the response failed: ${describe(error)}`, log));
  }

  /**
   * The stream failed after the answer was chosen. Before any byte went out the client still gets
   * an envelope; after that only cutting the connection keeps it from taking a short body for a
   * whole one (Content-Length is already on the wire, and the opener never releases its last bytes).
   */
  private failMidway(log: JobLogFields, error: Error, response: Response, length: number, opener?: ResultStreamOpener): void {
    const id = log.jobId;
    const what =
      error instanceof ResultVerificationError
        ? `verification failed (${error.check}): ${error.message}`
        : `reading the stored object failed: ${describe(error)}`;
    if (response.headersSent || response.destroyed) {
      const sent = opener ? ` after ${opener.releasedBytes} of ${length} bytes` : '';
      this.logger.error(`result of job ${id}: ${what}; the response was cut off${sent}`, log);
      response.destroy();
      return;
    }
    this.logger.error(`result of job ${id}: ${what}; answered with an error before sending any byte`, log);
    const failure =
      error instanceof FetcherError
        ? error
        : new StorageError(FetCode.StorageFailed, `the result object of job ${id} could not be read from the store`);
    for (const name of SUCCESS_ONLY_HEADERS) response.removeHeader(name);
    const { status, body } = this.envelopes.render(failure);
    response.status(status).json(body);
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
