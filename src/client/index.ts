// `fetcher/client`: the typed HTTP client (docs/client.md). Nothing here imports the service.
export { createFetcherClient, RESULT_SHA256_HEADER } from './fetcher-client.js';
export type {
  Download,
  DownloadOptions,
  FetcherClient,
  FetcherClientOptions,
  FetcherRawClient,
  Job,
  JobAccepted,
  JobPage,
  JobStatus,
  ListJobsQuery,
  SubmitJobBody,
  Submitted,
  WaitOptions,
} from './fetcher-client.js';
export { downloadToFile } from './download-to-file.js';
export { FetcherApiError, FetcherIntegrityError, FetcherWaitError, type FetEnvelope } from './fetcher-api-error.js';
export type { components, operations, paths } from './openapi.js';
