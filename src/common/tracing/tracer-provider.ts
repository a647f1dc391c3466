import { Logger } from '@nestjs/common';
import { context, diag, DiagLogLevel, propagation, trace, type DiagLogger } from '@opentelemetry/api';
import { getNumberFromEnv, getStringFromEnv, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanLimits,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { settlesWithin } from '../../engine/concurrency/settles-within.js';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
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

/**
 * Batches spans and sends them over OTLP/HTTP to `<endpoint>/v1/traces`, as the OTel spec reads the base endpoint.
 * The exporter still reads its own OTEL_EXPORTER_OTLP_* variables (headers, timeout, compression).
 */
export function otlpSpanProcessor(endpoint: string): SpanProcessor {
  return new BatchSpanProcessor({
    exporter: new OTLPTraceExporter({ url: otlpTracesUrl(endpoint) }),
    // SDK 3 reads no OTEL_BSP_* variable any more (sdk-node does): read here, as docs/operations.md promises them.
    maxExportBatchSize: getNumberFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
    maxQueueSize: getNumberFromEnv('OTEL_BSP_MAX_QUEUE_SIZE'),
    scheduledDelayMillis: getNumberFromEnv('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: getNumberFromEnv('OTEL_BSP_EXPORT_TIMEOUT'),
  });
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
  const provider = new TracerProvider({
    resource,
    spanProcessors: [processor],
    sampler: samplerFromEnv(),
    spanLimits: spanLimitsFromEnv(),
  });
  const propagator = new W3CTraceContextPropagator();
  if (holders === 0) {
    // What NodeTracerProvider.register() did in SDK 2.x; the context manager is what makes a span
    // started in a handler the child of its request's.
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager());
    propagation.setGlobalPropagator(propagator);
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

/**
 * SDK 3's TracerProvider reads no OTEL_* variable any more (sdk-node does): the sampler and span
 * limits SDK 2.x took from the environment are read here, with the same names, fallbacks and defaults.
 */
function samplerFromEnv(): Sampler {
  const ratio = () => {
    const arg = getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG');
    return arg !== undefined && arg >= 0 && arg <= 1 ? arg : 1;
  };
  switch (getStringFromEnv('OTEL_TRACES_SAMPLER')) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function spanLimitsFromEnv(): SpanLimits {
  return {
    attributeCountLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT') ?? getNumberFromEnv('OTEL_ATTRIBUTE_COUNT_LIMIT'),
    attributeValueLengthLimit:
      getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? getNumberFromEnv('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'),
    linkCountLimit: getNumberFromEnv('OTEL_SPAN_LINK_COUNT_LIMIT'),
    eventCountLimit: getNumberFromEnv('OTEL_SPAN_EVENT_COUNT_LIMIT'),
    attributePerEventCountLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT'),
    attributePerLinkCountLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT'),
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
