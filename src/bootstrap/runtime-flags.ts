/**
 * The V8 heap setting Fetcher runs with (as NODE_OPTIONS, unless the operator set their own). On a
 * big machine V8 sizes its heap from physical memory (4 GiB here) and lets garbage grow towards it
 * before a full collection: 120 rows of 2 MB took a worker to 300-370 MiB resident although only a
 * few MiB were live. A 1 GiB old generation gets that garbage collected early (250-255 MiB on the
 * same job) at no cost to throughput on the 1M-row bench, still holds a single value as large as a
 * whole result, and matches the memory guard's default (WORKER_MAX_RSS_MB), which then fires before
 * the heap runs out. `npm start`, the image, the bench and the tests' worker processes all use it.
 *
 * A 2 MiB semi-space (V8 grows it to 16 MiB by default) keeps the young generation small: the read
 * path allocates almost nothing per row, so the 1M-row bench runs as fast, while the boot's garbage
 * no longer holds 32 MiB of young generation for the life of an idle process (idle RSS 138 → 113
 * MiB, a job's peak 173 → 129 MiB, on the bench machine).
 */
export const DEFAULT_NODE_OPTIONS = '--max-old-space-size=1024 --max-semi-space-size=2';

/** NODE_OPTIONS for a Fetcher process: the operator's own when given, the defaults otherwise. */
export function fetcherNodeOptions(env: NodeJS.ProcessEnv): string {
  const configured = env.NODE_OPTIONS?.trim();
  return configured ? configured : DEFAULT_NODE_OPTIONS;
}

/**
 * A V8 flag NODE_OPTIONS does not take, set by the service's entry point before it loads anything:
 * from Node.js 22 (V8 12+) the heap grows about twice as far between full collections, and a
 * worker writing the ~256 MiB mixed table as Parquet peaked at 219 MiB, over the 200 MiB it is held
 * to (test/e2e/formats-memory.e2e.spec.ts; 170 MiB on Node.js 20). Favouring size brings the
 * command's peak on that job from ~150 back to ~118 MiB (Node.js 20: ~109); the JSON read path runs
 * as fast, Parquet about as fast as on Node.js 20.
 */
export const SERVICE_V8_FLAGS = '--optimize-for-size';
