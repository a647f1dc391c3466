/** Log fields: plain values only (no errors, no objects that could carry a password). */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * Where the engine says what its caller may want to know but need not act on (a server that
 * refused COPY, so its reads fall back to a cursor). Messages never carry secrets. The service
 * passes its own logger; a library caller passes `console` or nothing.
 */
export interface EngineLogger {
  warn(message: string, fields?: LogFields): void;
}

export const SILENT_LOGGER: EngineLogger = { warn: () => undefined };
