import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/json/canonical-json.js';
import type { CreateJobDto } from './dto/create-job.dto.js';

/** SHA-256 (hex) of the canonical JSON of `{dataRequest, metadata}` (docs/job-lifecycle.md, "Deduplication"). */
export function requestHash(request: Pick<CreateJobDto, 'dataRequest' | 'metadata'>): string {
  return createHash('sha256')
    .update(canonicalJson({ dataRequest: request.dataRequest, metadata: request.metadata }))
    .digest('hex');
}
