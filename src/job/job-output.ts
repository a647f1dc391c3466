import { DEFAULT_OUTPUT, resolveOutput, type ResultOutput } from '../engine/formats/output-format.js';

/**
 * What a job stores of its `output`: null for the default (json, none), so every job of before
 * formats and every job that asks for the default look alike, in the store and in the request hash.
 */
export function storedOutput(requested: Partial<ResultOutput> | null | undefined): ResultOutput | null {
  const output = resolveOutput(requested);
  return isDefaultOutput(output) ? null : output;
}

/** A job's output, every member given: what the worker writes and the job answers. */
export function outputOf(job: { readonly output?: ResultOutput | null }): ResultOutput {
  return resolveOutput(job.output);
}

export function isDefaultOutput(output: ResultOutput): boolean {
  return output.format === DEFAULT_OUTPUT.format && output.compression === DEFAULT_OUTPUT.compression;
}
