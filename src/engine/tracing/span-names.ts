/**
 * Every span name and `fetcher.*` attribute Fetcher emits, in one place: they are an interface
 * operators build dashboards on (see the README, "Operating Fetcher → Traces"). Names carry no
 * ids; ids, tables and counts go in attributes.
 */
export const SPAN = {
  /** One delivery of a job to a worker; its parent is the request that created the job. */
  job: 'job extract',
  /** Schema discovery and validation of every datasource of the job. */
  plan: 'extraction.plan',
  /** One table streamed from its datasource. */
  readTable: 'extraction.read_table',
  /** Sealing the result: the last bytes encrypted and the upload completed. */
  seal: 'result.seal',
  /** Making the sealed attempt object the job's result, inside the commit. */
  publish: 'result.publish',
} as const;

export const ATTR = {
  jobId: 'fetcher.job_id',
  jobAttempt: 'fetcher.job_attempt',
  /** completed | failed | skipped | released | lost, as ExtractionService.process returns it. */
  jobOutcome: 'fetcher.job_outcome',
  errorCode: 'fetcher.error_code',
  datasource: 'fetcher.datasource',
  engine: 'fetcher.engine',
  table: 'fetcher.table',
  rows: 'fetcher.rows',
  datasourceCount: 'fetcher.datasource_count',
  tableCount: 'fetcher.table_count',
  resultBytes: 'fetcher.result_bytes',
} as const;
