import { Injectable } from '@nestjs/common';
import { FetCode } from '../engine/errors/fet-code.js';
import { acceptsSslMode, engineFacts } from '../engine/connectors/shared/engine-facts.js';
import { DatasourceError } from '../datasource/datasource.error.js';
import type { DatasourceType } from '../engine/connectors/datasource-type.js';
import { InternalDatasources } from '../datasource/internal/internal-datasources.service.js';
import { EgressGuard } from '../engine/egress/egress-guard.js';

/** What a connection must satisfy before it is stored, checked without connecting to it. */
@Injectable()
export class ConnectionRules {
  constructor(
    private readonly internal: InternalDatasources,
    private readonly guard: EgressGuard,
  ) {}

  /** FET-0413 for an SSL mode its engine does not take, FET-0402 for metadata the engine cannot do without. */
  assertEngineRules(type: DatasourceType, sslMode: string | null, metadata: Readonly<Record<string, unknown>> | null): void {
    const facts = engineFacts(type);
    if (!acceptsSslMode(facts, sslMode)) {
      const modes = facts.ssl.modes.join(', ');
      throw new DatasourceError(
        FetCode.InvalidSslMode,
        `Invalid SSL mode. The provided SSL mode '${sslMode}' is not supported for ${type}; use one of: ${modes}.`,
        { fields: { 'ssl.mode': `must be one of ${modes}` } },
      );
    }
    const missing = facts.requiredMetadata?.find((key) => typeof metadata?.[key] !== 'string');
    if (missing !== undefined) {
      throw new DatasourceError(FetCode.MissingFields, `${facts.label} connections need metadata.${missing}`, {
        fields: { [`metadata.${missing}`]: `metadata.${missing} is a required field for ${type}` },
      });
    }
  }

  /** FET-1002: internal datasources keep their names to themselves. */
  assertNotReserved(configName: string): void {
    if (this.internal.findByConfigName(configName)) {
      throw new DatasourceError(FetCode.DuplicateConfigName, `'${configName}' is the name of an internal datasource`, {
        fields: { configName: `'${configName}' is reserved by an internal datasource` },
      });
    }
  }

  /** FET-0414 for a host the egress policy refuses (see EgressGuard.assertAllowed). */
  assertAllowedHost(host: string): Promise<void> {
    return this.guard.assertAllowed(host);
  }
}
