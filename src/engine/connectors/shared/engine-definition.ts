/**
 * What Fetcher knows about an engine without connecting to it: how the API names it, where it
 * listens by default, which SSL modes it takes and which metadata a connection cannot do without.
 * Each engine declares its own in `<engine>/<engine>-engine.ts`; engine-facts.ts lists them.
 */
export interface EngineFacts {
  /** The name in the API and in DATASOURCE_<NAME>_TYPE (`POSTGRESQL`). */
  readonly type: string;
  /** The name people know it by, for messages (`PostgreSQL`). */
  readonly label: string;
  /** Where an internal datasource declared without DATASOURCE_<NAME>_PORT connects. */
  readonly defaultPort: number;
  readonly ssl: {
    /** Accepted as written (case-sensitive), and listed in this order when a mode is refused. */
    readonly modes: readonly string[];
    /** What an empty or absent mode means. */
    readonly defaultMode: string;
  };
  /** Keys of `metadata` a connection of this engine cannot work without (Oracle: serviceName). */
  readonly requiredMetadata?: readonly string[];
  /**
   * Keys of `metadata` the connector reads to decide which server (or database on it) the
   * credentials are presented to, or how the server's certificate is checked: part of the
   * endpoint's identity, like host and port. A stored connection whose value changes loses its
   * stored credentials (docs/security.md, "Stored secrets go only where they were entered").
   */
  readonly identityMetadata?: readonly string[];
}

/** Checks an engine's facts against EngineFacts and keeps their literal types (`'POSTGRESQL'`, the tuple of modes). */
export function defineEngine<const F extends EngineFacts>(facts: F): F {
  return facts;
}
