/** What the fake TDS server (fake-tds-server.ts) is told to answer, and what it reports. */
export type FakeColumnType = 'int' | 'nvarchar' | 'bit' | 'varbinary' | 'float' | 'nvarchar(max)' | 'varbinary(max)';
export interface FakeColumn {
  readonly name: string;
  readonly type: FakeColumnType;
}
export type FakeValue = number | string | boolean | Buffer | null;
export interface ServerMessage {
  readonly number: number;
  readonly message: string;
}
export type FakeAnswer =
  | {
      readonly columns: readonly FakeColumn[];
      readonly rows: Iterable<readonly FakeValue[]>;
      /** Sends this many rows, then goes quiet mid-result (a blocked scan) until the client cancels. */
      readonly stallAfter?: number;
      /** Sends this many bytes of the result (a row cut short: a value still arriving), then goes quiet likewise. */
      readonly stallAfterBytes?: number;
      /** With `stallAfter` or `stallAfterBytes`: the attention is ignored too, as by a server that has stopped reading. */
      readonly deaf?: boolean;
    }
  | { readonly error: ServerMessage }
  /** Never answers (WAITFOR, a lock wait…) until the client cancels; `deaf`: not even then. */
  | { readonly hang: true; readonly deaf?: boolean };

export interface FakeTdsServerOptions {
  /** The pre-login ENCRYPTION answer (default NOT_SUP: no TLS). */
  readonly encryption?: 'OFF' | 'ON' | 'NOT_SUP' | 'REQ';
  /** The login fails with these server messages (in order), as SQL Server sends them. */
  readonly loginErrors?: readonly ServerMessage[];
  /** TDS 8.0 (`encrypt: 'strict'`): TLS from the first byte, with this certificate. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** TDS 7.x (`encrypt: true`): answers ENCRYPTION ON and negotiates TLS inside the pre-login, with this certificate. */
  readonly preloginTls?: { readonly cert: string; readonly key: string };
  /** Accepts connections and never says a word. */
  readonly silent?: boolean;
  /** Loopback address to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** The login is answered with a routing ENVCHANGE (type 20) sending the client to this server, as Azure SQL gateways do. */
  readonly route?: { readonly server: string; readonly port: number };
  readonly answer?: (sql: string) => FakeAnswer;
  /** The answer to a SQL batch (not sp_executesql); undefined, or no function: DONE without rows. */
  readonly batchAnswer?: (sql: string) => FakeAnswer | undefined;
}

export interface FakeTdsServer {
  readonly port: number;
  /** TCP connections accepted. */
  readonly connections: number;
  /** LOGIN7 packets received (user name and password travel in them). */
  readonly logins: number;
  /** Statement texts received (RPC sp_executesql), in order. */
  readonly statements: string[];
  /** The parameter declarations sent with each statement (`@p1 nvarchar(max), …`). */
  readonly declarations: string[];
  /** SQL batch texts received (tedious' login SET statements first), in order. */
  readonly batches: string[];
  /** Statements and batches together, in the order they arrived. */
  readonly received: string[];
  /** Statements whose result is still being produced (or hanging). */
  readonly running: number;
  readonly attentions: number;
  readonly rowsSent: number;
  /** Drops every client connection, as a server killing its sessions does. */
  killConnections(): void;
  close(): Promise<void>;
}

/** The columns of the connector's discovery query (sys.objects ⋈ sys.columns), in its order. */
const CATALOG_COLUMNS: readonly FakeColumn[] = [
  'schema',
  'table',
  'column',
  'column_id',
  'type',
  'base',
  'assembly',
  'max_length',
  'precision',
  'scale',
  'key_ordinal',
].map((name) => ({
  name,
  type: ['column_id', 'max_length', 'precision', 'scale', 'key_ordinal'].includes(name) ? 'int' : name === 'assembly' ? 'bit' : 'nvarchar',
}));

/** An answer to the discovery query: one row per column, values in CATALOG_COLUMNS order. */
export function catalogAnswer(rows: Iterable<readonly FakeValue[]>): FakeAnswer {
  return { columns: CATALOG_COLUMNS, rows };
}
