import { describe, expect, it } from 'vitest';
import { FetCode } from '../engine/errors/fet-code.js';
import { validateIncremental } from '../engine/request/incremental.validator.js';
import { StreamNamePipe, streamNameProblem } from './stream-name.pipe.js';

const NAMES = [
  'nightly',
  'a/b c',
  'é-流',
  'x'.repeat(128),
  'x'.repeat(129),
  '',
  ' ',
  ' lead',
  'trail ',
  'tab\there',
  'nul\u0000',
  'del\u007f',
  'c1\u0085',
  'ls\u2028',
];

/** Whether the data-request validator refuses `name` as `incremental.stream`. */
function refusedInJobs(name: string): boolean {
  const problems: string[] = [];
  validateIncremental({ stream: name, cursors: { pg: { t: 'id' } } }, { pg: { t: ['id'] } }, undefined, (_detail, path) =>
    problems.push(path),
  );
  return problems.includes('dataRequest.incremental.stream');
}

describe('stream names in paths', () => {
  it.each(NAMES)('accepts %j exactly when a job may name its stream so', (name) => {
    expect(streamNameProblem(name) !== undefined).toBe(refusedInJobs(name));
  });

  it('answers 400 FET-0404 naming the problem, and passes a good name through as decoded', () => {
    const pipe = new StreamNamePipe();
    expect(pipe.transform('a/b c')).toBe('a/b c');
    expect(() => pipe.transform('x'.repeat(129))).toThrow(
      expect.objectContaining({
        code: FetCode.InvalidPathId,
        message: 'invalid stream name: a stream name has at most 128 characters, got 129',
      }),
    );
  });
});
