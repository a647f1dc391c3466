/** What the fake Oracle server (fake-oracle-server.ts) is told to answer, and what it reports. */
export type FakeOracleValue = string | null;
export type FakeOracleAnswer =
  | {
      readonly columns: readonly string[];
      readonly rows: Iterable<readonly FakeOracleValue[]>;
      /** Sends this many rows, then goes quiet in the middle of a round trip until the client breaks. */
      readonly stallAfter?: number;
      /** With `stallAfter`: the break is ignored too, as by a server that no longer reads its socket. */
      readonly deaf?: boolean;
    }
  | { readonly error: { readonly code: number; readonly message: string } }
  /** Never answers (a lock wait, a long scan) until the client breaks; `deaf`: not even then. */
  | { readonly hang: true; readonly deaf?: boolean }
  /** A statement without rows (ALTER SESSION). */
  | { readonly done: true };

export interface FakeOracleServerOptions {
  readonly password: string;
  /** `auth`: accepts the connection, negotiates, and never answers the login. */
  readonly stallLogin?: 'auth';
  readonly answer?: (sql: string) => FakeOracleAnswer;
}

export interface FakeOracleServer {
  readonly port: number;
  /** Connections accepted, and those still open. */
  readonly connections: number;
  readonly openConnections: number;
  /** Completed logins. */
  readonly logins: number;
  /** Statement texts executed (full executes; re-executions of a cached cursor repeat the text). */
  readonly statements: string[];
  /** Rows asked for by each round trip that returns rows (the execute's prefetch, then each fetch). */
  readonly fetchSizes: number[];
  /** Breaks (interrupt markers) received. */
  readonly breaks: number;
  /** Calls hanging or stalled, waiting for a break. */
  readonly running: number;
  close(): Promise<void>;
}
