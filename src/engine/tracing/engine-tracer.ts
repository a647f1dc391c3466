/** Span attributes as the engine sets them (span-names.ts lists every `fetcher.*` one). */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

export interface EngineSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
}

/** A span its caller ends (one per table read). */
export interface EngineOpenSpan {
  /** Marks the span failed and returns `error`, for `throw span.fail(error)`. */
  fail<E>(error: E): E;
  end(attributes?: SpanAttributes): void;
}

/**
 * The tracing port: the engine starts spans through it and never loads an SDK. The service passes
 * its OpenTelemetry-backed Tracing; without one nothing is created.
 */
export interface EngineTracer {
  /** Runs `fn` in a child of the active span; the span ends when `fn` settles, failed if it throws. */
  inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: EngineSpan) => Promise<T>): Promise<T>;
  startSpan(name: string, attributes: SpanAttributes): EngineOpenSpan;
}

const NOOP_SPAN: EngineSpan & EngineOpenSpan = { setAttribute: () => undefined, fail: (error) => error, end: () => undefined };

export const NO_TRACING: EngineTracer = {
  inSpan: (_name, _attributes, fn) => fn(NOOP_SPAN),
  startSpan: () => NOOP_SPAN,
};
