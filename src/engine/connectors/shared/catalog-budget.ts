import { CatalogTooLargeError } from '../../errors/engine-errors.js';

/** Default bytes of catalog one discovery may read; the service sets SCHEMA_DISCOVERY_MAX_BYTES. */
export const DEFAULT_CATALOG_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The bytes one schema discovery may read from the server, counted while the catalog arrives,
 * never after it was collected: a server that streams rows without end is stopped once it has
 * sent `maxBytes`. Connectors that see their socket (PostgreSQL, MySQL, SQL Server) charge what
 * the server sends for the catalog queries as it arrives, before the driver buffers it; Oracle
 * charges each fetched row's values; MongoDB, whose discovery samples documents rather than reads
 * a catalog, charges the collection names and field paths it keeps.
 */
export class CatalogBudget {
  private used = 0;
  private over: CatalogTooLargeError | undefined;

  constructor(
    readonly maxBytes: number,
    private readonly configName: string,
  ) {}

  /** Bytes charged so far. */
  get usedBytes(): number {
    return this.used;
  }

  /** The error once the budget was exceeded: the connector must then cut its connection and fail with it. */
  get exceeded(): CatalogTooLargeError | undefined {
    return this.over;
  }

  /** Counts `bytes`; false (and `exceeded` set) once the total passes `maxBytes`. */
  tryCharge(bytes: number): boolean {
    if (this.over !== undefined) return false;
    this.used += bytes;
    if (this.used <= this.maxBytes) return true;
    this.over = new CatalogTooLargeError(this.configName, this.maxBytes);
    return false;
  }

  /** Counts `bytes`, throwing the CatalogTooLargeError once the total passes `maxBytes`. */
  charge(bytes: number): void {
    if (!this.tryCharge(bytes)) throw this.over;
  }
}

/** What a caller that gives no budget gets (connectors driven directly by tests). */
export const defaultCatalogBudget = (configName: string): CatalogBudget => new CatalogBudget(DEFAULT_CATALOG_MAX_BYTES, configName);
