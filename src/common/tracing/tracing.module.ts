import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { Tracing } from './tracing.js';

/**
 * Where finished spans go. Production: a batch processor exporting over OTLP/HTTP. Tests override
 * it (e.g. a SimpleSpanProcessor over an InMemorySpanExporter); it is used only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, so an override alone never turns tracing on.
 */
export const SPAN_PROCESSOR = Symbol('SPAN_PROCESSOR');

/**
 * Traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set. The SDK is imported only then; off,
 * `Tracing` is the disabled port and the HTTP middleware (mounted in bootstrap/create-app.ts)
 * passes straight through. Spans still buffered are flushed when the application shuts down.
 */
@Global()
@Module({
  providers: [
    {
      provide: SPAN_PROCESSOR,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<SpanProcessor | null> => {
        const endpoint = config.tracing.otlpEndpoint;
        if (!endpoint) return null;
        const { otlpSpanProcessor } = await import('./tracer-provider.js');
        return otlpSpanProcessor(endpoint);
      },
    },
    {
      provide: Tracing,
      inject: [APP_CONFIG, SPAN_PROCESSOR],
      useFactory: async (config: AppConfig, processor: SpanProcessor | null): Promise<Tracing> => {
        if (!config.tracing.otlpEndpoint || !processor) return Tracing.disabled();
        const { startTracing } = await import('./tracer-provider.js');
        return Tracing.enabled(
          startTracing(processor, { serviceName: config.tracing.serviceName, serviceVersion: config.version, role: config.role }),
        );
      },
    },
  ],
  exports: [Tracing],
})
export class TracingModule implements OnApplicationShutdown {
  constructor(@Inject(Tracing) private readonly tracing: Tracing) {}

  async onApplicationShutdown(): Promise<void> {
    await this.tracing.shutdown();
  }
}
