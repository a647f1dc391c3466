import type { ConnectionRecord } from '../datasource/connection.entity.js';

/** Whether a pending or processing job reads a connection; provided by the job module. */
export interface ActiveJobs {
  usesConnection(connection: Pick<ConnectionRecord, 'id' | 'configName' | 'productName'>): Promise<boolean>;
}

export const ACTIVE_JOBS = Symbol('ACTIVE_JOBS');
