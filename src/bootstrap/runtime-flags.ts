/**
 * The V8 heap setting Fetcher runs with (as NODE_OPTIONS, unless the operator set their own). On a
 * big machine V8 sizes its heap from physical memory (4 GiB here) and lets garbage grow towards it
 * before a full collection: 120 rows of 2 MB took a worker to 300-370 MiB resident although only a
 * few MiB were live. A 1 GiB old generation gets that garbage collected early (250-255 MiB on the
 * same job) at no cost to throughput on the 1M-row bench, still holds a single value as large as a
 * whole result, and matches the memory guard's default (WORKER_MAX_RSS_MB), which then fires before
 * the heap runs out. `npm start`, the image, the bench and the tests' worker processes all use it.
 */
export const DEFAULT_NODE_OPTIONS = '--max-old-space-size=1024';

/** NODE_OPTIONS for a Fetcher process: the operator's own when given, the defaults otherwise. */
export function fetcherNodeOptions(env: NodeJS.ProcessEnv): string {
  const configured = env.NODE_OPTIONS?.trim();
  return configured ? configured : DEFAULT_NODE_OPTIONS;
}
