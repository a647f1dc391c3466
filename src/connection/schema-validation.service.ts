import { Inject, Injectable } from '@nestjs/common';
import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError, type ErrorDetail } from '../engine/errors/fetcher-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConnectionRepository } from '../datasource/connection.repository.js';
import { DatasourceError } from '../datasource/datasource.error.js';
import { DatasourceConnectError } from '../engine/errors/datasource-errors.js';
import { compareKeys } from '../engine/planner/mapped-tables.js';
import { DatasourceResolver, type NameScope } from '../datasource/datasource-resolver.service.js';
import { Engine } from '../engine/engine.js';
import { collectRequested, matchRequested, type DatasourceMatch, type RequestedDatasource } from '../engine/planner/requested-schema.js';
import { SchemaService } from '../datasource/schema/schema.service.js';
import { checkDataRequest } from '../job/data-request-check.js';
import type { MappedFields } from '../engine/request/data-request.js';
import type { SchemaValidationSuccessDto } from './dto/schema.dto.js';
import { safeMessage } from '../engine/probes/connection-probe.js';

/** POST validate-schema: a job's mappedFields checked against the live (or cached) schemas, before submitting. */
@Injectable()
export class SchemaValidationService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly resolver: DatasourceResolver,
    private readonly engine: Engine,
    private readonly schemas: SchemaService,
    private readonly connections: ConnectionRepository,
  ) {}

  /**
   * The same checks a job's planning does (docs/api.md, "mappedFields"), before submitting: 200, or
   * 422 listing every unknown datasource, table and field. Schemas come from the cache when fresh.
   */
  async validate(mappedFields: MappedFields, scope: NameScope): Promise<SchemaValidationSuccessDto> {
    checkDataRequest({ mappedFields }, this.config.extraction, 'body');
    // Names resolve within the caller's products: another product's connection is reported as not found, like any unknown name.
    const resolved = await this.resolver.resolve(Object.keys(mappedFields), scope);
    const requested = collectRequested({ mappedFields }, resolved, this.engine.nameRules);
    const versions = await this.versions(requested);
    const matches = await matchRequested(requested, requested.length, (datasource, schemas) =>
      this.schemas.discoverCached(datasource, versions.get(datasource.configName) ?? 0, schemas),
    );
    // Our own errors (a refused host, a discovery timeout, a cleared password) answer the whole call with their code.
    const refused = matches.find((match) => match.status === 'unavailable' && match.error instanceof FetcherError);
    if (refused) throw (refused as Extract<DatasourceMatch, { status: 'unavailable' }>).error;
    const details = matches.flatMap(detailsOf);
    if (details.length === 0)
      return { status: 'success', message: 'Schema validated successfully. All datasources, tables, and fields exist.' };
    details.sort((a, b) =>
      compareKeys(`${a.datasource}\0${a.table ?? ''}\0${a.field ?? ''}`, `${b.datasource}\0${b.table ?? ''}\0${b.field ?? ''}`),
    );
    throw new DatasourceError(
      FetCode.SchemaValidationFailed,
      `Schema validation found ${details.length} inconsistenc${details.length === 1 ? 'y' : 'ies'}.`,
      { details },
    );
  }

  /** The updatedAt of each stored connection, which versions its cached schema. */
  private async versions(requested: readonly RequestedDatasource[]): Promise<Map<string, number>> {
    const stored = requested.flatMap(({ configName, datasource }) =>
      datasource && !datasource.internal ? [{ configName, id: datasource.id }] : [],
    );
    const records = new Map((await this.connections.findByIds(stored.map(({ id }) => id))).map((record) => [record.id, record]));
    return new Map(stored.map(({ configName, id }) => [configName, records.get(id)?.updatedAt.getTime() ?? 0]));
  }
}

/** What one datasource contributes to the 422. */
function detailsOf(match: DatasourceMatch): readonly ErrorDetail[] {
  switch (match.status) {
    case 'not_found':
      return [{ type: 'datasource_not_found', datasource: match.configName }];
    case 'matched':
      return match.details;
    case 'unavailable': {
      const reason = match.error instanceof DatasourceConnectError ? match.error.reason : 'unknown';
      return [{ type: 'datasource_unavailable', datasource: match.configName, reason, message: safeMessage(match.error) }];
    }
  }
}
