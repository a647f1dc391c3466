import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_NODE_OPTIONS, fetcherNodeOptions } from './runtime-flags.js';

describe('Fetcher runtime flags', () => {
  it('defaults to the heap settings, and leaves an operator NODE_OPTIONS alone', () => {
    expect(fetcherNodeOptions({})).toBe(DEFAULT_NODE_OPTIONS);
    expect(fetcherNodeOptions({ NODE_OPTIONS: '  ' })).toBe(DEFAULT_NODE_OPTIONS);
    expect(fetcherNodeOptions({ NODE_OPTIONS: '--max-old-space-size=4096' })).toBe('--max-old-space-size=4096');
  });

  it('are the ones the image runs with', () => {
    const dockerfile = readFileSync(new URL('../../docker/Dockerfile', import.meta.url), 'utf8');
    expect(dockerfile).toContain(`ENV NODE_OPTIONS="${DEFAULT_NODE_OPTIONS}"`);
  });
});
