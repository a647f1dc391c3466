import { Logger } from '@nestjs/common';
import { context, diag, DiagLogLevel, propagation, trace, type DiagLogger } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { settlesWithin } from '../../engine/concurrency/settles-within.js';
import type { TracingBackend } from './tracing.js';
import { systemClock } from '../clock/clock.js';

/**
 * The OpenTelemetry SDK side of tracing, imported only when tracing is on: a process without
 * OTEL_EXPORTER_OTLP_ENDPOINT never loads the SDK or the exporter.
 */

/** A collector that stopped answering must not hold the shutdown for the exporter's own timeouts. */
const SHUTDOWN_FLUSH_MS = 5_000;
/** Export failures repeat every batch while a collector is down: one warning per interval is enough. */
const EXPORT_WARNING_INTERVAL_MS = 60_000;

export interface TracingIdentity {
  readonly serviceName: string;
  readonly serviceVersion: string;
  readonly role: string;
}

/** Batches spans and sends them over OTLP/HTTP to `<endpoint>/v1/traces`, as the OTel spec reads the base endpoint. */
export function otlpSpanProcessor(endpoint: string): SpanProcessor {
  return new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpTracesUrl(endpoint) }));
}

export function otlpTracesUrl(endpoint: string): string {
  return `${endpoint.endsWith('/') ? endpoint : `${endpoint}/`}v1/traces`;
}

/**
 * The API's globals (context manager, propagator, tracer provider) are process-wide, while apps
 * come and go (tests boot several in one process): the first enabled app registers them, the last
 * one to shut down unregisters them. Each app keeps its own provider and tracer either way.
 */
let holders = 0;

export function startTracing(processor: SpanProcessor, identity: TracingIdentity): TracingBackend {
  const resource = defaultResource().merge(
    resourceFromAttributes({
      [ATTR_SERVICE_NAME]: identity.serviceName,
      [ATTR_SERVICE_VERSION]: identity.serviceVersion,
      'fetcher.role': identity.role,
    }),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  const propagator = new W3CTraceContextPropagator();
  if (holders === 0) {
    // The async-hooks context manager is what makes a span started in a handler the child of its request's.
    provider.register({ propagator });
    diag.setLogger(exportWarnings(), { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true });
  }
  holders += 1;
  let stopped: Promise<void> | undefined;
  return {
    tracer: provider.getTracer('fetcher', identity.serviceVersion),
    propagator,
    shutdown: () =>
      (stopped ??= (async () => {
        try {
          await settlesWithin(provider.shutdown(), SHUTDOWN_FLUSH_MS);
        } finally {
          holders -= 1;
          if (holders === 0) {
            trace.disable();
            context.disable();
            propagation.disable();
            diag.disable();
          }
        }
      })()),
  };
}

/** The SDK reports failed exports through `diag.error`; they become rate-limited warnings in the app's log. */
function exportWarnings(): DiagLogger {
  const logger = new Logger('Tracing');
  let lastWarning = Number.NEGATIVE_INFINITY;
  const warn = (message: string) => {
    const now = systemClock.nowMs();
    if (now - lastWarning < EXPORT_WARNING_INTERVAL_MS) return;
    lastWarning = now;
    logger.warn(`trace export failed (further failures are silent for a minute): ${message.slice(0, 300)}`);
  };
  const ignore = () => undefined;
  return { error: warn, warn: ignore, info: ignore, debug: ignore, verbose: ignore };
}
