import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import type { InternalDatasourceConfig } from '../../config/internal-datasources.config.js';
import type { Principal } from '../../auth/principal.js';
import type { ProductScope } from '../../auth/product-scope.js';
import type { ResolvedDatasource } from '../connectors/engine-connector.js';

/**
 * Datasources declared by DATASOURCE_<NAME>_* variables: read-only through the API, no product,
 * exempt from the SSRF guard and from the connection test at job creation (SPEC §3.6).
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

  /** DATASOURCE_<NAME>_PRODUCTS restricts one to the products it names; operators may always use it. */
  static usableBy(datasource: InternalDatasourceConfig, principal: Principal): boolean {
    return principal.operator || InternalDatasources.allows(datasource, principal.products);
  }

  static usableIn(datasource: InternalDatasourceConfig, scope: ProductScope): boolean {
    return scope.products === 'all' || InternalDatasources.allows(datasource, scope.products);
  }

  /** Whether a job of `product` may read it. */
  static allowsProduct(datasource: InternalDatasourceConfig, product: string): boolean {
    return InternalDatasources.allows(datasource, [product.toLowerCase()]);
  }

  private static allows(datasource: InternalDatasourceConfig, products: readonly string[]): boolean {
    return datasource.products === null || datasource.products.some((product) => products.includes(product));
  }

  static resolved(datasource: InternalDatasourceConfig): ResolvedDatasource {
    return {
      id: datasource.id,
      configName: datasource.configName,
      type: datasource.type,
      host: datasource.host,
      port: datasource.port,
      databaseName: datasource.databaseName,
      schemaName: datasource.schemaName,
      userName: datasource.userName,
      password: datasource.password,
      ssl: datasource.ssl,
      metadata: datasource.metadata,
      productName: null,
      internal: true,
    };
  }
}
