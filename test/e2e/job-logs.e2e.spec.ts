import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { readLogLines, type LogLine } from '../helpers/log-lines.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { SOURCE_FIXTURE_SQL } from '../helpers/source-fixtures.js';
import { ownLogFile } from '../helpers/test-log-file.js';

/** The lines about one job, found the way an operator would: by its id anywhere in the line. Access lines name it only in their path. */
function linesMentioning(lines: LogLine[], jobId: string): LogLine[] {
  return lines.filter((line) => line.msg !== 'request completed' && JSON.stringify(line).includes(jobId));
}

/** A job's log lines carry its id, its attempt and its datasource as fields, not only in their text. */
describe('job log lines', () => {
  const log = ownLogFile();
  const logFile = log.file;
  let fetcher: EmbeddedFetcher | undefined;
  const source = useTempDatabase('e2e_job_logs');
  let completedId: string;
  let failedId: string;
  let lines: LogLine[];

  beforeAll(async () => {
    await source().query(SOURCE_FIXTURE_SQL);
    fetcher = await startEmbeddedFetcher({ LOG_FILE: logFile, LOG_LEVEL: 'log' });
    await registerPostgres(fetcher.http, source(), { configName: 'pg_logs', product: 'reporter' });
    const submit = async (mappedFields: object, correlationId: string) => {
      const response = await fetcher!.http
        .post('/v1/fetcher')
        .send({ dataRequest: { mappedFields }, metadata: { source: 'reporter', correlationId } });
      expect(response.status).toBe(202);
      return response.body.jobId as string;
    };
    completedId = await submit({ pg_logs: { accounts: ['id', 'email'] } }, 'logs-completed');
    // Submission checks the connection, not the tables: this one fails on the worker, at planning.
    failedId = await submit({ pg_logs: { no_such_table: ['id'] } }, 'logs-failed');
    expect((await waitForJob(fetcher.http, completedId)).status).toBe('completed');
    expect((await waitForJob(fetcher.http, failedId)).status).toBe('failed');
    // Closing flushes the file: every line the jobs caused is in it.
    await fetcher.close();
    fetcher = undefined;
    lines = readLogLines(logFile);
  });

  afterAll(async () => {
    await fetcher?.close();
    log.remove();
  });

  it('tags every line about the completed job with its id, attempt and datasource', () => {
    const about = linesMentioning(lines, completedId);
    expect(about.length).toBeGreaterThan(0);
    for (const line of about) expect(line).toMatchObject({ jobId: completedId, attempt: 1, datasource: 'pg_logs' });
    expect(about.find((line) => line.msg.startsWith(`job ${completedId} completed`))).toMatchObject({
      level: 30,
      context: 'ExtractionService',
      rows: 3,
      bytes: expect.any(Number),
      durationMs: expect.any(Number),
    });
  });

  it('tags every line about the failed job the same way, with the failure code', () => {
    const about = linesMentioning(lines, failedId);
    expect(about.length).toBeGreaterThan(0);
    for (const line of about) expect(line).toMatchObject({ jobId: failedId, attempt: 1, datasource: 'pg_logs' });
    expect(about.find((line) => line.msg.startsWith(`job ${failedId} failed`))).toMatchObject({
      level: 40,
      code: expect.stringMatching(/^FET-\d{4}$/),
    });
  });

  it('puts nothing of one job on the lines of the other, nor the id of the request that queued it', () => {
    for (const line of linesMentioning(lines, completedId)) expect(JSON.stringify(line)).not.toContain(failedId);
    // The embedded queue starts a job inside the POST that queued it; the job's lines are still not that request's.
    for (const line of [...linesMentioning(lines, completedId), ...linesMentioning(lines, failedId)]) {
      expect(line).not.toHaveProperty('requestId');
    }
  });
});
