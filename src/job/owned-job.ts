import { actsFor, type Principal } from '../auth/principal.js';
import { entityNotFound } from '../common/errors/not-found.error.js';
import type { JobRecord } from './job.entity.js';
import type { JobRepository } from './job.repository.js';

/**
 * The job `id` as `principal` may see it. Another product's job does not exist for a product
 * principal: the same 404 as an unknown id, so ids cannot be probed across products.
 */
export async function findOwnedJob(jobs: Pick<JobRepository, 'findById'>, id: string, principal: Principal): Promise<JobRecord> {
  const job = await jobs.findById(id);
  if (!job || !actsFor(principal, job.productName)) throw entityNotFound('job');
  return job;
}
