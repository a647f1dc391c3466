/**
 * The part of `mssql` 12 (which ships no type declarations) that the SQL Server connector uses.
 * Kept deliberately small: every member here is one the connector or its tests call.
 */
declare module 'mssql' {
  import type { EventEmitter } from 'node:events';
  import type { Connection as TediousConnection, ConnectionOptions as TediousOptions } from 'tedious';

  export interface ISqlType {
    readonly type: unknown;
    readonly length?: number;
  }
  export type ISqlTypeFactory = (...args: number[]) => ISqlType;

  export interface PoolOptions {
    max?: number;
    min?: number;
    idleTimeoutMillis?: number;
    acquireTimeoutMillis?: number;
    createTimeoutMillis?: number;
  }

  export interface config {
    server: string;
    port?: number;
    database?: string;
    user?: string;
    password?: string;
    connectionTimeout?: number;
    requestTimeout?: number;
    stream?: boolean;
    parseJSON?: boolean;
    arrayRowMode?: boolean;
    /** `true` runs `SELECT 1` on every acquire; `'socket'` checks the socket only. */
    validateConnection?: boolean | 'socket';
    pool?: PoolOptions;
    options?: TediousOptions;
    /** Called with every tedious connection the pool creates, before it connects. */
    beforeConnect?: (connection: TediousConnection) => void;
  }

  export interface IResult<Row = unknown> {
    readonly recordset: Row[];
    readonly recordsets: Row[][];
    readonly rowsAffected: number[];
  }

  export class MSSQLError extends Error {
    readonly code?: string;
    readonly originalError?: unknown;
  }
  export class ConnectionError extends MSSQLError {
    constructor(message: string | Error, code?: string);
  }
  export class RequestError extends MSSQLError {
    constructor(message: string | Error, code?: string);
    readonly number?: number;
    readonly state?: number;
    readonly class?: number;
    readonly lineNumber?: number;
  }

  export class ConnectionPool extends EventEmitter {
    constructor(config: config);
    readonly connected: boolean;
    readonly connecting: boolean;
    connect(): Promise<ConnectionPool>;
    close(): Promise<ConnectionPool>;
    request(): Request;
  }

  export class Request extends EventEmitter {
    constructor(pool: ConnectionPool);
    stream: boolean | null;
    arrayRowMode: boolean | null;
    readonly canceled: boolean;
    input(name: string, type: ISqlType | ISqlTypeFactory, value: unknown): this;
    /** The type inferred from the value (tests only: the connector always declares types). */
    input(name: string, value: unknown): this;
    query<Row = unknown>(command: string): Promise<IResult<Row>>;
    /** A T-SQL batch as it is (no sp_executesql, no parameters): what it SETs outlives it. */
    batch<Row = unknown>(command: string): Promise<IResult<Row>>;
    pause(): boolean;
    resume(): boolean;
    cancel(): boolean;
  }

  export const MAX: number;
  export const NVarChar: ISqlTypeFactory;
  export const VarBinary: ISqlTypeFactory;
  export const Bit: ISqlTypeFactory;
  export const Float: ISqlTypeFactory;

  const mssql: {
    ConnectionPool: typeof ConnectionPool;
    Request: typeof Request;
    ConnectionError: typeof ConnectionError;
    RequestError: typeof RequestError;
    MAX: number;
    NVarChar: ISqlTypeFactory;
    VarBinary: ISqlTypeFactory;
    Bit: ISqlTypeFactory;
    Float: ISqlTypeFactory;
  };
  export default mssql;
}
