import { Injectable } from '@nestjs/common';
import { actsFor, productsOf, type Principal } from '../auth/principal.js';
import { JobPageDto, JobSummaryDto } from './dto/job-summary.dto.js';
import type { ListJobsQuery } from './dto/list-jobs.query.js';
import { JobListRepository } from './job-list.repository.js';

/** Lists of jobs: the operator's cover every product, a product principal's only its own. */
@Injectable()
export class JobListService {
  constructor(private readonly jobs: JobListRepository) {}

  async list(query: ListJobsQuery, principal: Principal): Promise<JobPageDto> {
    const productNames = visibleProducts(principal, query.source);
    // Another product's source answers like a product without jobs: it must not tell them apart.
    if (productNames !== undefined && productNames.length === 0) return { items: [], page: query.page, limit: query.limit, total: 0 };
    const { items, total } = await this.jobs.list(
      { productNames, status: query.status, createdFrom: query.createdFrom, createdBefore: query.createdBefore },
      { skip: (query.page - 1) * query.limit, take: query.limit, order: query.order },
    );
    return { items: items.map((job) => JobSummaryDto.from(job)), page: query.page, limit: query.limit, total };
  }
}

/** The products whose jobs the list may hold; undefined is every product (an operator without `source`). */
function visibleProducts(principal: Principal, source: string | undefined): readonly string[] | undefined {
  if (source !== undefined) return actsFor(principal, source) ? [source] : [];
  const products = productsOf(principal);
  return products === 'all' ? undefined : products;
}
