import { Injectable, Optional } from '@nestjs/common';
import type { ResolvedDatasource } from '../engine/connectors/shared/engine-connector.js';
import { Engine } from '../engine/engine.js';
import type { ConnectionTestResult } from '../engine/probes/connection-probe.js';
import { Metrics } from '../common/metrics/metrics.port.js';
import { ConnectionTestSlots } from './connection-test-slots.js';

export type { ConnectionTestResult } from '../engine/probes/connection-probe.js';

/**
 * Opens a real connection to a datasource and closes it again (the engine's test), within the
 * caps on connections open at once (shared with live schema discoveries): waiting for a slot
 * counts against the timeout. A host the egress policy refuses is thrown (FET-0414), not
 * reported as a failed test.
 */
@Injectable()
export class ConnectionTester {
  constructor(
    private readonly engine: Engine,
    private readonly slots: ConnectionTestSlots,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  async test(datasource: ResolvedDatasource, timeoutMs: number): Promise<ConnectionTestResult> {
    let result: ConnectionTestResult;
    try {
      result = await this.engine.testDatasource(datasource, timeoutMs, this.slots.gate);
    } catch (error) {
      this.metrics?.connectionTested(datasource.type, 'refused');
      throw error;
    }
    this.metrics?.connectionTested(datasource.type, result.ok ? undefined : result.error.reason);
    return result;
  }
}
