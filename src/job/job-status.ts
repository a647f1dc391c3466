export enum JobStatus {
  Pending = 'pending',
  Processing = 'processing',
  Completed = 'completed',
  Failed = 'failed',
}

export const ACTIVE_JOB_STATUSES = [JobStatus.Pending, JobStatus.Processing] as const;
