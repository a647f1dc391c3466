import type { JobRecord } from './job.entity.js';

/** What every log line about a job carries as fields, so that one query finds all of a job's lines. */
export interface JobLogFields {
  readonly jobId: string;
  /** The attempt the line is about; 0 while the job has never been claimed. */
  readonly attempt?: number;
  /** The job's datasource (configName) when it reads one; `datasources` when it reads several. */
  readonly datasource?: string;
  readonly datasources?: readonly string[];
}

/** The fields of a line about `job`; `attempt` when the line is about another attempt than the record's. */
export function jobLogFields(job: Pick<JobRecord, 'id' | 'attempts' | 'mappedFields'>, attempt = job.attempts): JobLogFields {
  const names = Object.keys(job.mappedFields ?? {});
  const where = names.length === 1 ? { datasource: names[0] } : names.length > 1 ? { datasources: names } : {};
  return { jobId: job.id, attempt, ...where };
}
