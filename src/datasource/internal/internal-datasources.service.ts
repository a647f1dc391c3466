import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import type { InternalDatasourceConfig } from '../../config/internal-datasources.config.js';
import type { ServiceDatasource } from '../service-datasource.js';

/**
 * Datasources declared by DATASOURCE_<NAME>_* variables: read-only through the API, no product,
 * exempt from the SSRF guard and from the connection test at job creation
 * (docs/api.md, "Internal datasources").
 */
@Injectable()
export class InternalDatasources {
  private readonly byId: ReadonlyMap<string, InternalDatasourceConfig>;
  private readonly byName: ReadonlyMap<string, InternalDatasourceConfig>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.byId = new Map(config.internalDatasources.map((datasource) => [datasource.id, datasource]));
    this.byName = new Map(config.internalDatasources.map((datasource) => [datasource.configName, datasource]));
  }

  all(): InternalDatasourceConfig[] {
    return [...this.byName.values()];
  }

  findById(id: string): InternalDatasourceConfig | undefined {
    return this.byId.get(id);
  }

  findByConfigName(configName: string): InternalDatasourceConfig | undefined {
    return this.byName.get(configName);
  }

  /**
   * Whether products may use it: DATASOURCE_<NAME>_PRODUCTS restricts it to the products it names
   * ('all' stands for an operator, or a job of any product when it names none).
   */
  static openTo(datasource: InternalDatasourceConfig, products: readonly string[] | 'all'): boolean {
    return products === 'all' || datasource.products === null || datasource.products.some((product) => products.includes(product));
  }

  /**
   * As the connectors see it: no product, and `internal`, so no SSRF guard. Resolved for one
   * product, its sessions may be reused by that product's later jobs (never by another's).
   */
  static resolved(datasource: InternalDatasourceConfig, products?: readonly string[] | 'all'): ServiceDatasource {
    const { envName: _envName, products: _products, ...endpoint } = datasource;
    const reuse = Array.isArray(products) && products.length === 1 ? { reuseScope: `internal:${products[0]}` } : {};
    return { ...endpoint, productName: null, internal: true, ...reuse };
  }
}
