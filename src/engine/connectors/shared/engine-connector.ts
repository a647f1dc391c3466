import type { DatasourceType } from '../datasource-type.js';
import type { FilterCondition } from '../../request/data-request.js';
import type { EgressPolicy } from '../../egress/egress-policy.js';
import type { CatalogBudget } from './catalog-budget.js';
import type { ReadBudget } from './read-budget.js';
import type { CursorKind, CursorRange, RangeBoundListener } from '../../incremental/cursor-range.js';

/**
 * Where a datasource is and how to log in: what a stored connection and an internal datasource
 * (DATASOURCE_<NAME>_* variables) both declare.
 */
export interface DatasourceEndpoint {
  readonly configName: string;
  readonly type: DatasourceType;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly schemaName: string | null;
  readonly userName: string;
  readonly password: string;
  readonly ssl: { readonly mode: string | null; readonly ca?: string; readonly cert?: string; readonly key?: string };
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** A datasource with its secrets in clear, ready for a driver. Never logged or returned. */
export interface ResolvedDatasource extends DatasourceEndpoint {
  /** Stable identity: what the engine remembers of a datasource is keyed by it (a server that refused COPY). */
  readonly id: string;
  /** Declared by whoever runs the process (the service's DATASOURCE_<NAME>_* variables): no egress check, it connects by name. */
  readonly internal: boolean;
  /**
   * Sessions of this datasource may serve later opens of the same id, credentials and scope
   * (engines with a session pool, see SessionPool). The service gives the product and the
   * connection's version; absent, every open connects afresh.
   */
  readonly reuseScope?: string;
}

export interface ColumnInfo {
  readonly name: string;
  /** The engine's own type name, for people (`numeric(38,10)`, `timestamp with time zone`). */
  readonly dataType: string;
  /** Whatever the connector needs to map values of this column (type OIDs, flags). */
  readonly engineType?: unknown;
}

export interface TableInfo {
  /** Physical namespace: PostgreSQL/SQL Server schema, Oracle owner; null where the engine has none. */
  readonly schema: string | null;
  readonly name: string;
  /** Result key: `schema.table`, or `table` for the default schema (docs/api.md, "Tables and result keys"). */
  readonly key: string;
  /** In table (ordinal) order. */
  readonly columns: readonly ColumnInfo[];
  /** Primary-key column names in key order; empty when the table has none. */
  readonly primaryKey: readonly string[];
}

export interface SchemaSnapshot {
  /** Tables keyed by result key. */
  readonly tables: ReadonlyMap<string, TableInfo>;
}

export interface TableReadRequest {
  readonly table: TableInfo;
  /** Projection, in output order; every entry is a column of `table`. */
  readonly columns: readonly ColumnInfo[];
  /** Validated filters keyed by column name; every key is a column of `table`. */
  readonly filters?: Readonly<Record<string, FilterCondition>>;
  /**
   * Bounds the memory a read may hold by bytes, not rows. Absent (connectors driven directly by
   * tests): the connector's defaults (DEFAULT_READ_BUDGET).
   */
  readonly budget?: ReadBudget;
  /** How the batch's rows are wrapped and joined; absent: JSON_ROW_FRAME (the result document's array members). */
  readonly rowFrame?: RowFrame;
  /**
   * An incremental read (docs/incremental.md): only the rows of this range, its upper bound taken
   * in the snapshot the rows are read from and reported to `onRangeBound` before the first batch.
   * The range is ANDed with `filters` (which never constrain the cursor with gt, gte or lte).
   */
  readonly range?: CursorRange;
  readonly onRangeBound?: RangeBoundListener;
}

/**
 * What surrounds each rendered row in a batch: `open` + `{…}` + `close`, rows of one batch joined
 * with `separator`. The JSON document's frame is empty around a row and a comma between rows;
 * NDJSON's wraps each row as `{"datasource":…,"table":…,"row":{…}}` and joins them with a newline.
 * Renderers write it as they write the row, so a format that only frames rows costs no second pass.
 */
export interface RowFrame {
  readonly open: string;
  readonly close: string;
  readonly separator: string;
}

export const JSON_ROW_FRAME: RowFrame = { open: '', close: '', separator: ',' };

/**
 * Rows already rendered as JSON objects (docs/value-mapping.md), framed by the request's RowFrame
 * (by default: joined with commas), as UTF-8.
 * Bytes rather than a string: a batch waiting in a buffer is then one object, not a rope of
 * thousands of small strings that the garbage collector has to promote and trace.
 */
export interface RowBatch {
  readonly json: Buffer;
  readonly rowCount: number;
  /**
   * Present when the connector would reuse the memory of `json`: the consumer calls it once the
   * bytes have been written (hashed, encrypted or copied) and nothing refers to them any more.
   * Not calling it is harmless: the memory is then simply garbage.
   */
  readonly release?: () => void;
}

export interface ConnectorSession {
  /**
   * Discovers the given namespaces, or every namespace the login can read when `schemas` is null
   * (system schemas never appear). Engines without schemas ignore the list. An abort stops the
   * catalog queries on the server like a read's, and rejects with the signal's reason within
   * ABORT_BUDGET_MS: a server that accepts the login and then stays silent cannot hold a caller.
   * What the server sends is charged to `budget` while it arrives (absent: the default budget);
   * past it the connection is cut and the call rejects with CatalogTooLargeError (FET-1044).
   */
  discover(schemas: readonly string[] | null, signal: AbortSignal, budget?: CatalogBudget): Promise<SchemaSnapshot>;
  /** Streams the rows of one table in primary-key order, with backpressure: the next batch is read when asked for. */
  readRows(request: TableReadRequest, signal: AbortSignal): AsyncIterable<RowBatch>;
  close(): Promise<void>;
  /**
   * One round trip that proves the server still answers this session and left it outside any
   * transaction; rejects otherwise. Engines whose sessions may be pooled implement it and `reusable`.
   */
  ping?(signal: AbortSignal): Promise<void>;
  /** Nothing is running on it, and it was never interrupted, cut or failed: another caller may use it. */
  readonly reusable?: boolean;
}

export interface OpenSessionOptions {
  readonly connectTimeoutMs: number;
  readonly signal?: AbortSignal;
  /**
   * Where this open may connect: dial `egress.target.address` for the record's host (the name
   * stays for TLS), and check every other socket through it. Absent for internal datasources,
   * which connect by name.
   */
  readonly egress?: EgressPolicy;
  /**
   * false: a password is never sent where it would travel in clear text (no TLS). DatasourceSessions
   * always sets it from ALLOW_PLAINTEXT_PASSWORD; absent (connectors driven directly by tests) means allowed.
   */
  readonly allowPlaintextPassword?: boolean;
}

/**
 * One database engine. Adding an engine is its facts (`<engine>-engine.ts`, listed in
 * engine-facts.ts) and one class implementing this, added to defaultConnectors (default-connectors.ts).
 */
export interface EngineConnector {
  /** The `type` of its engine's facts. */
  readonly type: DatasourceType;
  /** Namespace of unqualified table names (`public`), or null when names are never qualified. */
  defaultSchema(datasource: ResolvedDatasource): string | null;
  /**
   * How the engine folds a requested schema, table or field name before it is matched against the
   * discovered schema (Oracle: upper case). Absent: names are matched exactly.
   */
  canonicalName?(name: string): string;
  /**
   * The cursor kind of a column, or null when it cannot be a cursor (text, floating point, …).
   * Absent: the engine has no incremental reads.
   */
  cursorKind?(column: ColumnInfo): CursorKind | null;
  /** Opens a real connection (and checks it answers). Throws DatasourceConnectError on failure. */
  open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession>;
}
