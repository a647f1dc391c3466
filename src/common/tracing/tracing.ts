import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import { FetcherError } from '../../engine/errors/fetcher-error.js';
import { ATTR } from '../../engine/tracing/span-names.js';
import type { TraceCarrier } from './trace-carrier.js';

/** What an enabled Tracing runs on: built by tracer-provider.ts, which alone loads the SDK. */
export interface TracingBackend {
  readonly tracer: Tracer;
  readonly propagator: TextMapPropagator;
  /** Flushes what is buffered and unregisters; safe to call twice. */
  shutdown(): Promise<void>;
}

/** HTTP headers or a queue carrier: what a W3C propagator reads a parent from. */
export type TraceHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** A span its caller ends, for work whose end is an event (a response finishing) or a loop. */
export interface OpenSpan {
  readonly span: Span;
  /** Runs `fn` with this span as the active one, so spans started inside are its children. */
  run<T>(fn: () => T): T;
  /** Marks the span failed with a message safe to export, and returns `error` for `throw open.fail(error)`. */
  fail<E>(error: E): E;
  end(attributes?: Attributes): void;
}

const NOOP_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
const NOOP_OPEN_SPAN: OpenSpan = { span: NOOP_SPAN, run: (fn) => fn(), fail: (error) => error, end: () => undefined };

/**
 * The tracing port: the rest of the code starts spans through it and never touches the SDK.
 * Disabled (no OTEL_EXPORTER_OTLP_ENDPOINT) every method returns at once without creating
 * anything, so tracing costs nothing when it is off.
 */
export class Tracing {
  private constructor(private readonly backend: TracingBackend | undefined) {}

  static disabled(): Tracing {
    return new Tracing(undefined);
  }

  static enabled(backend: TracingBackend): Tracing {
    return new Tracing(backend);
  }

  get enabled(): boolean {
    return this.backend !== undefined;
  }

  /** Runs `fn` in a child of the active span; the span ends when `fn` settles, failed if it throws. */
  inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
    if (!this.backend) return fn(NOOP_SPAN);
    return this.run(this.backend, context.active(), name, SpanKind.INTERNAL, attributes, fn);
  }

  /**
   * Runs `fn` in a span whose parent is the context a carrier brought from another process (the
   * request that enqueued a job); without a carrier (a re-delivery by the recovery sweep) the span
   * starts a trace of its own rather than joining whatever happens to be active.
   */
  continueTrace<T>(carrier: TraceCarrier | undefined, name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
    const backend = this.backend;
    if (!backend) return fn(NOOP_SPAN);
    const parent = carrier ? backend.propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter) : ROOT_CONTEXT;
    return this.run(backend, parent, name, SpanKind.CONSUMER, attributes, fn);
  }

  /**
   * Starts a span the caller ends. With `remoteParent` (incoming HTTP headers) its parent is the
   * caller's `traceparent`, or none; otherwise it is a child of the active span.
   */
  startSpan(name: string, attributes: Attributes, options: { kind?: SpanKind; remoteParent?: TraceHeaders } = {}): OpenSpan {
    const backend = this.backend;
    if (!backend) return NOOP_OPEN_SPAN;
    const parent = options.remoteParent
      ? backend.propagator.extract(ROOT_CONTEXT, options.remoteParent, defaultTextMapGetter)
      : context.active();
    const span = backend.tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, parent);
    const active = trace.setSpan(parent, span);
    return {
      span,
      run: (fn) => context.with(active, fn),
      fail: (error) => (markFailed(span, error), error),
      end: (endAttributes) => {
        if (endAttributes) span.setAttributes(endAttributes);
        span.end();
      },
    };
  }

  /** The active trace context as a carrier for the queue, or nothing when there is none. */
  carrier(): TraceCarrier | undefined {
    if (!this.backend) return undefined;
    const fields: Record<string, string> = {};
    this.backend.propagator.inject(context.active(), fields, defaultTextMapSetter);
    if (!fields.traceparent) return undefined;
    return fields.tracestate ? { traceparent: fields.traceparent, tracestate: fields.tracestate } : { traceparent: fields.traceparent };
  }

  /** `fn` runs in the context active now, whoever calls it later (a store's transaction machinery). */
  bind<F extends (...args: never[]) => unknown>(fn: F): F {
    return this.backend ? context.bind(context.active(), fn) : fn;
  }

  /** Adds attributes to the active span (the job span, from inside the extraction). */
  annotate(attributes: Attributes): void {
    if (this.backend) trace.getActiveSpan()?.setAttributes(attributes);
  }

  /** Marks the active span failed with `message`, which must be safe to export (an API error message). */
  failActive(message: string, attributes: Attributes = {}): void {
    if (!this.backend) return;
    const span = trace.getActiveSpan();
    span?.setAttributes(attributes);
    span?.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  shutdown(): Promise<void> {
    return this.backend?.shutdown() ?? Promise.resolve();
  }

  private async run<T>(
    backend: TracingBackend,
    parent: Context,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    fn: (span: Span) => Promise<T>,
  ): Promise<T> {
    const span = backend.tracer.startSpan(name, { kind, attributes }, parent);
    try {
      return await context.with(trace.setSpan(parent, span), fn, undefined, span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }
}

/**
 * What a span may say about an error. A FetcherError's message is what the API shows and never
 * carries secrets; any other error (a driver's, with hosts, users or SQL in it) is named by its
 * class only.
 */
export function safeErrorMessage(error: unknown): string {
  if (error instanceof FetcherError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.name : 'non-error value thrown';
}

function markFailed(span: Span, error: unknown): void {
  const message = safeErrorMessage(error);
  // Never recordException(error): its stack and message are exactly what must not leave.
  span.recordException({ name: error instanceof Error ? error.name : 'Error', message });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  if (error instanceof FetcherError) span.setAttribute(ATTR.errorCode, error.code);
}
