import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/json/canonical-json.js';
import type { ResultOutput } from '../engine/formats/output-format.js';
import type { StreamMarks } from '../engine/request/incremental-request.js';
import type { CreateJobDto } from './dto/create-job.dto.js';
import { storedOutput } from './job-output.js';

/**
 * SHA-256 (hex) of the canonical JSON of `{dataRequest, metadata}`, with `output` (all its members)
 * only when it is not the default: a request for the default, given or not, hashes as it always did
 * (docs/job-lifecycle.md, "Deduplication"). An incremental request adds `marks`, the stream's
 * committed marks of its cursor tables: the same request once they moved is another extraction.
 */
export function requestHash(
  request: Pick<CreateJobDto, 'dataRequest' | 'metadata'> & { readonly output?: Partial<ResultOutput> | null },
  marks?: StreamMarks,
): string {
  const output = storedOutput(request.output);
  const canonical = canonicalJson({
    dataRequest: request.dataRequest,
    metadata: request.metadata,
    ...(output ? { output } : {}),
    ...(marks ? { marks } : {}),
  });
  return createHash('sha256').update(canonical).digest('hex');
}
