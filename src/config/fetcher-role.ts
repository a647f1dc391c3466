export enum FetcherRole {
  Manager = 'manager',
  Worker = 'worker',
  All = 'all',
}

export const runsManager = (role: FetcherRole): boolean => role !== FetcherRole.Worker;
export const runsWorker = (role: FetcherRole): boolean => role !== FetcherRole.Manager;
