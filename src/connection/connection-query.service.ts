import { Injectable } from '@nestjs/common';
import { actsFor, productsOf, type Principal } from '../auth/principal.js';
import type { ProductScope } from '../auth/product-scope.js';
import type { InternalDatasourceConfig } from '../config/internal-datasources.config.js';
import type { ConnectionRecord } from '../datasource/connection.entity.js';
import { ConnectionRepository, type ConnectionListFilter } from '../datasource/connection.repository.js';
import type { ServiceDatasource } from '../datasource/service-datasource.js';
import { DatasourceResolver } from '../datasource/datasource-resolver.service.js';
import { entityNotFound } from '../common/errors/not-found.error.js';
import { ConnectionPageDto, ConnectionResponseDto, INTERNAL_CREATED_AT } from './dto/connection-response.dto.js';
import type { ListConnectionsQuery } from './dto/list-connections.query.js';
import { InternalDatasources } from '../datasource/internal/internal-datasources.service.js';

export type LoadedConnection =
  | { readonly internal: false; readonly record: ConnectionRecord }
  | { readonly internal: true; readonly datasource: InternalDatasourceConfig };

/** Reads of connections: one by id, and filtered pages that merge stored and internal ones. */
@Injectable()
export class ConnectionQueryService {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly internal: InternalDatasources,
    private readonly resolver: DatasourceResolver,
  ) {}

  /**
   * A live stored connection or an internal datasource the principal may use, or 404: another
   * product's connection does not exist for it.
   */
  async load(id: string, principal: Principal): Promise<LoadedConnection> {
    const datasource = this.internal.findById(id);
    if (datasource) {
      if (!InternalDatasources.openTo(datasource, productsOf(principal))) throw entityNotFound('connection');
      return { internal: true, datasource };
    }
    const record = await this.connections.findById(id);
    if (!record || !actsFor(principal, record.productName)) throw entityNotFound('connection');
    return { internal: false, record };
  }

  /** What a driver needs to reach it; FET-1024 for a stored connection whose password was cleared. */
  resolved(loaded: LoadedConnection): ServiceDatasource {
    return loaded.internal ? InternalDatasources.resolved(loaded.datasource) : this.resolver.fromRecord(loaded.record);
  }

  async get(id: string, principal: Principal): Promise<ConnectionResponseDto> {
    const loaded = await this.load(id, principal);
    return loaded.internal ? ConnectionResponseDto.fromInternal(loaded.datasource) : ConnectionResponseDto.from(loaded.record);
  }

  /**
   * Connections in scope, with the internal datasources the scope may use counted and paged like
   * the rest (none when X-Product-Name narrows the list to one product's own connections).
   */
  list(scope: ProductScope, query: ListConnectionsQuery): Promise<ConnectionPageDto> {
    const internal = scope.named
      ? []
      : this.internal
          .all()
          .filter((datasource) => InternalDatasources.openTo(datasource, scope.products) && matchesInternal(datasource, query));
    const productNames = scope.products === 'all' ? undefined : scope.products;
    return this.page({ ...filterOf(query), productNames }, internal, query);
  }

  /** Stored connections without a product; internal datasources are never "unassigned". */
  unassigned(query: ListConnectionsQuery): Promise<ConnectionPageDto> {
    return this.page({ ...filterOf(query), unassigned: true }, [], query);
  }

  /**
   * Internal datasources sort as the oldest connections (creation time 1970): last when newest
   * come first, first otherwise. A page never holds more than `limit` items, and `total` counts
   * both kinds.
   */
  private async page(
    filter: ConnectionListFilter,
    internal: InternalDatasourceConfig[],
    query: ListConnectionsQuery,
  ): Promise<ConnectionPageDto> {
    const offset = (query.page - 1) * query.limit;
    const internalDtos = internal
      .sort((a, b) => (a.configName < b.configName ? -1 : 1))
      .map((datasource) => ConnectionResponseDto.fromInternal(datasource));
    let items: ConnectionResponseDto[];
    let storedTotal: number;
    if (query.order === 'DESC') {
      const stored = await this.connections.list(filter, { skip: offset, take: query.limit, order: 'DESC' });
      storedTotal = stored.total;
      const start = Math.max(0, offset - storedTotal);
      items = [
        ...stored.items.map((record) => ConnectionResponseDto.from(record)),
        ...internalDtos.slice(start, start + query.limit - stored.items.length),
      ];
    } else {
      const first = internalDtos.slice(offset, offset + query.limit);
      const stored = await this.connections.list(filter, {
        skip: Math.max(0, offset - internalDtos.length),
        take: Math.max(1, query.limit - first.length),
        order: 'ASC',
      });
      storedTotal = stored.total;
      items = [...first, ...stored.items.slice(0, query.limit - first.length).map((record) => ConnectionResponseDto.from(record))];
    }
    return { items, page: query.page, limit: query.limit, total: storedTotal + internalDtos.length };
  }
}

function filterOf(query: ListConnectionsQuery): ConnectionListFilter {
  return {
    type: query.type,
    host: query.host,
    databaseName: query.databaseName,
    createdFrom: query.createdFrom,
    createdBefore: query.createdBefore,
    metadata: query.metadata,
  };
}

function matchesInternal(datasource: InternalDatasourceConfig, query: ListConnectionsQuery): boolean {
  if (query.type !== undefined && datasource.type !== query.type) return false;
  if (query.host !== undefined && datasource.host !== query.host) return false;
  if (query.databaseName !== undefined && datasource.databaseName !== query.databaseName) return false;
  if (query.createdFrom && INTERNAL_CREATED_AT < query.createdFrom) return false;
  if (query.createdBefore && INTERNAL_CREATED_AT >= query.createdBefore) return false;
  return Object.entries(query.metadata).every(([key, value]) => datasource.metadata[key] === value);
}
