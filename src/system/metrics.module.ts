import { Global, Module } from '@nestjs/common';
import { Metrics } from '../common/metrics/metrics.port.js';
import { MetricsService } from './metrics.service.js';

/**
 * The process's Prometheus registry, and the Metrics port every layer records through. Global
 * because the port's users (auth, datasource, events, webhook, extraction) sit below system/ and
 * may not import it (docs/architecture.md, "Layers"); the root imports it once.
 */
@Global()
@Module({
  providers: [MetricsService, { provide: Metrics, useExisting: MetricsService }],
  exports: [MetricsService, Metrics],
})
export class MetricsModule {}
