import { AsyncLocalStorage } from 'node:async_hooks';

// Taken when the module loads, at boot: no request is being handled then.
const bootContext = AsyncLocalStorage.snapshot();

/**
 * Runs `work` outside of whatever request is being handled: a job the embedded queue starts
 * while answering POST /v1/fetcher (or when another job ends) must not log under that request's
 * id, nor under another job's.
 */
export function runDetached<T>(work: () => T): T {
  return bootContext(work);
}
