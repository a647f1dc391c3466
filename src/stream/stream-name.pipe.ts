import { Injectable, type PipeTransform } from '@nestjs/common';
import { RequestValidationError } from '../common/errors/request-errors.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { MAX_STREAM_NAME_LENGTH } from '../engine/request/incremental-request.js';

// As the data-request validator checks `incremental.stream` (stream-name.pipe.spec.ts holds the two together).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** Why `name` cannot be a stream's name, or undefined when a job could have named its stream so. */
export function streamNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'a stream name is not empty';
  if (name.length > MAX_STREAM_NAME_LENGTH) return `a stream name has at most ${MAX_STREAM_NAME_LENGTH} characters, got ${name.length}`;
  if (CONTROL.test(name)) return 'a stream name has no control characters';
  if (name !== name.trim()) return 'a stream name does not begin or end with whitespace';
  return undefined;
}

/**
 * `{name}` of the stream routes, percent-decoded by the router: one a job could name its stream
 * (`/` as `%2F`), else 400 FET-0404 before any lookup.
 */
@Injectable()
export class StreamNamePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = streamNameProblem(value);
    if (problem !== undefined) throw new RequestValidationError(FetCode.InvalidPathId, `invalid stream name: ${problem}`);
    return value;
  }
}
