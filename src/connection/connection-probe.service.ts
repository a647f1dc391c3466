import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { ConnectionTester } from '../datasource/connection-tester.service.js';
import { compareKeys } from '../engine/planner/mapped-tables.js';
import { SchemaService } from '../datasource/schema/schema.service.js';
import { ConnectionQueryService } from './connection-query.service.js';
import { ConnectionTestLimit } from './connection-test-limit.js';
import type { ConnectionSchemaDto, ConnectionTestResultDto } from './dto/schema.dto.js';
import { connectionFailed, discoveryFailure } from '../engine/probes/connection-probe.js';

const TEST_TIMEOUT_MS = 10_000;

/** Endpoints that reach into the database behind one connection: test and schema. */
@Injectable()
export class ConnectionProbeService {
  constructor(
    private readonly queries: ConnectionQueryService,
    private readonly testLimit: ConnectionTestLimit,
    private readonly tester: ConnectionTester,
    private readonly schemas: SchemaService,
  ) {}

  async test(id: string, principal: Principal): Promise<ConnectionTestResultDto> {
    const loaded = await this.queries.load(id, principal);
    // An internal datasource serves several products: each has its own count of tests of it.
    await this.testLimit.consume(id, loaded.internal ? principal : undefined);
    // This route answers "does a new connection work?": a pooled session would only prove the
    // server still answers, so the test connects afresh and its session is not kept.
    const { reuseScope: _pooledUnder, ...fresh } = this.queries.resolved(loaded);
    const outcome = await this.tester.test(fresh, TEST_TIMEOUT_MS);
    if (!outcome.ok) throw connectionFailed(FetCode.ConnectionTestFailed, outcome.error);
    return { status: 'success', message: 'Connection successful', latencyMs: outcome.latencyMs };
  }

  /** Live discovery of every readable namespace: tables sorted by name, fields in column order. */
  async schema(id: string, principal: Principal): Promise<ConnectionSchemaDto> {
    const datasource = this.queries.resolved(await this.queries.load(id, principal));
    const snapshot = await this.schemas.discover(datasource, null).catch((error: unknown) => {
      throw discoveryFailure(error);
    });
    const tables = [...snapshot.tables.values()]
      .sort((a, b) => compareKeys(a.key, b.key))
      .map((table) => ({ name: table.key, fields: table.columns.map((column) => column.name) }));
    return { id: datasource.id, configName: datasource.configName, databaseName: datasource.databaseName, type: datasource.type, tables };
  }
}
