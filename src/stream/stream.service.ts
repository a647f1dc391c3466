import { Injectable } from '@nestjs/common';
import { actsFor, productsOf, type Principal } from '../auth/principal.js';
import { Clock } from '../common/clock/clock.js';
import { invalidQuery } from '../common/http/pagination.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { markProblems } from '../engine/incremental/stream-marks.js';
import { StreamDto, StreamPageDto } from './dto/stream.dto.js';
import type { ListStreamsQuery, StreamQuery } from './dto/stream-query.js';
import type { StoredMarks } from './stream.entity.js';
import { StreamError, streamNotFound } from './stream.error.js';
import { StreamRepository } from './stream.repository.js';

/**
 * The stream routes (docs/api.md, "Streams"): product-scoped like jobs. Another product's stream
 * does not exist for a product principal (404, never 403), in lists and by name alike.
 */
@Injectable()
export class StreamService {
  constructor(
    private readonly streams: StreamRepository,
    private readonly clock: Clock,
  ) {}

  async list(query: ListStreamsQuery, principal: Principal): Promise<StreamPageDto> {
    const products = visibleProducts(principal, query.source);
    const { items, total } = await this.streams.list(products, { skip: (query.page - 1) * query.limit, take: query.limit });
    return { items: items.map((stream) => StreamDto.from(stream)), page: query.page, limit: query.limit, total };
  }

  async get(name: string, query: StreamQuery, principal: Principal): Promise<StreamDto> {
    const stream = await this.streams.find(productOf(principal, query.source), name);
    if (!stream) throw streamNotFound();
    return StreamDto.from(stream);
  }

  /** Replaces the marks wholesale (a replay from an earlier value, a backfill), creating the stream; 409 while a job of it is active. */
  async putMarks(name: string, query: StreamQuery, marks: unknown, principal: Principal): Promise<StreamDto> {
    const product = productOf(principal, query.source);
    const problems = markProblems(marks, 'marks');
    const paths = Object.keys(problems);
    if (paths.length > 0) {
      const message = paths.length === 1 ? `${paths[0]}: ${problems[paths[0]]}` : `${paths.length} problems in marks`;
      throw new StreamError(FetCode.InvalidDataRequest, message, { fields: problems });
    }
    return StreamDto.from(await this.streams.replaceMarks(product, name, marks as StoredMarks, this.clock.now()));
  }

  /** A reset: the next job of the stream reads every cursor table from its `initial` or its start. */
  async remove(name: string, query: StreamQuery, principal: Principal): Promise<void> {
    if (!(await this.streams.remove(productOf(principal, query.source), name))) throw streamNotFound();
  }
}

/** The products whose streams a list may hold; undefined is every product (an operator without `source`). */
function visibleProducts(principal: Principal, source: string | undefined): readonly string[] | undefined {
  if (source !== undefined) return actsFor(principal, source) ? [source] : [];
  const products = productsOf(principal);
  return products === 'all' ? undefined : products;
}

/**
 * The product of a stream route: `source`, which the operator and a credential of several products
 * must give; a credential of one product defaults to it. A product it does not act for answers as
 * a stream nobody created.
 */
function productOf(principal: Principal, source: string | undefined): string {
  if (source !== undefined) {
    if (!actsFor(principal, source)) throw streamNotFound();
    return source;
  }
  if (!principal.operator && principal.products.length === 1) return principal.products[0];
  if (!principal.operator && principal.products.length === 0) throw streamNotFound();
  const several = principal.operator ? '' : ` this credential acts for several products (${principal.products.join(', ')});`;
  throw invalidQuery(FetCode.InvalidQuery, `source is required:${several} name the product whose stream this is (?source=<product>)`, [
    'source',
  ]);
}
