import { createRequire } from 'node:module';

/**
 * The part of node-oracledb 7 (thin mode) this connector uses. The package ships no TypeScript
 * declarations and @types/oracledb is not installed, so the surface is declared here rather than
 * as a global `declare module` that could clash with another part of the tree.
 */

export interface OracleDbType {
  readonly name: string;
  readonly num: number;
}

/** Column metadata handed to `fetchTypeHandler` and kept on the result set. */
export interface OracleColumnMetadata {
  readonly name: string;
  readonly dbType?: OracleDbType;
  readonly dbTypeName?: string;
  readonly precision?: number;
  readonly scale?: number;
}

export interface OracleFetchType {
  readonly type?: OracleDbType;
}

/** A bind value: a plain JS value, or a value with an explicit database type (CHAR binds). */
export type OracleBindValue = string | number | boolean | Buffer | null | { readonly val: unknown; readonly type: OracleDbType };

export interface OracleExecuteOptions {
  readonly outFormat?: number;
  readonly resultSet?: boolean;
  readonly fetchArraySize?: number;
  readonly prefetchRows?: number;
  readonly fetchTypeHandler?: (metadata: OracleColumnMetadata) => OracleFetchType | undefined;
  readonly autoCommit?: boolean;
}

export interface OracleResultSet {
  readonly metaData?: readonly OracleColumnMetadata[];
  getRows(numRows: number): Promise<unknown[][]>;
  close(): Promise<void>;
}

export interface OracleExecuteResult {
  readonly rows?: unknown[][];
  readonly resultSet?: OracleResultSet;
}

export interface OracleConnection {
  execute(sql: string, binds?: readonly OracleBindValue[], options?: OracleExecuteOptions): Promise<OracleExecuteResult>;
  /** Interrupts the round trip in progress: the server ends the call with ORA-01013. */
  break(): Promise<void>;
  close(): Promise<void>;
  isHealthy(): boolean;
}

/** Options of `getConnection` this connector sets (thin mode). Timeouts are in seconds. */
export interface OracleConnectOptions {
  readonly user: string;
  readonly password: string;
  readonly connectString: string;
  readonly connectTimeout?: number;
  readonly transportConnectTimeout?: number;
  /** Minutes between TCP keep-alive probes, so a paused stream is not dropped by a firewall. */
  readonly expireTime?: number;
  readonly walletContent?: string;
  readonly sslServerDNMatch?: boolean;
  readonly sslServerCertDN?: string;
  readonly connectionIdPrefix?: string;
  readonly stmtCacheSize?: number;
}

export interface OracleDriver {
  readonly thin: boolean;
  readonly OUT_FORMAT_ARRAY: number;
  readonly STRING: OracleDbType;
  readonly BUFFER: OracleDbType;
  readonly DB_TYPE_NUMBER: OracleDbType;
  readonly DB_TYPE_CLOB: OracleDbType;
  readonly DB_TYPE_NCLOB: OracleDbType;
  readonly DB_TYPE_BLOB: OracleDbType;
  readonly DB_TYPE_CHAR: OracleDbType;
  readonly DB_TYPE_NCHAR: OracleDbType;
  getConnection(options: OracleConnectOptions): Promise<OracleConnection>;
}

let driver: OracleDriver | undefined;

/**
 * node-oracledb, loaded on first use. Thin mode is its default and the only mode used here:
 * `initOracleClient` (thick mode, Oracle Instant Client) is never called.
 */
export function oracleDriver(): OracleDriver {
  driver ??= createRequire(import.meta.url)('oracledb') as OracleDriver;
  return driver;
}
