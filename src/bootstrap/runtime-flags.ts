/**
 * The V8 heap settings Fetcher runs with (as NODE_OPTIONS, unless the operator set their own). On a
 * big machine V8 lets garbage grow towards a multi-gigabyte default heap before it collects it:
 * 120 rows of 2 MB took a worker to ~300-370 MiB resident although only a few MiB were live. A heap
 * limit equal to the memory guard's default (WORKER_MAX_RSS_MB) and a small young generation keep
 * that garbage collected early (~220 MiB on the same job) and still hold a single value as large as
 * a whole result. `npm start`, the image and the tests' worker processes all use this one value.
 */
export const DEFAULT_NODE_OPTIONS = '--max-old-space-size=1536 --max-semi-space-size=4';

/** NODE_OPTIONS for a Fetcher process: the operator's own when given, the defaults otherwise. */
export function fetcherNodeOptions(env: NodeJS.ProcessEnv): string {
  const configured = env.NODE_OPTIONS?.trim();
  return configured ? configured : DEFAULT_NODE_OPTIONS;
}
