/** Whether a pending or processing job reads a connection; provided by the job module. */
export interface ActiveJobs {
  usesConnection(configName: string): Promise<boolean>;
}

export const ACTIVE_JOBS = Symbol('ACTIVE_JOBS');
