import { Inject, Injectable } from '@nestjs/common';
import { ANONYMOUS_OPERATOR, type Principal } from '../auth/principal.js';
import { Clock } from '../common/clock/clock.js';
import { FetCode } from '../engine/errors/fet-code.js';
import type { ConnectionRecord } from '../datasource/connection.entity.js';
import { ConnectionRepository } from '../datasource/connection.repository.js';
import { DatasourceError } from '../datasource/datasource.error.js';
import { entityNotFound } from '../common/errors/not-found.error.js';
import { Engine } from '../engine/engine.js';
import { isUniqueViolation } from '../persistence/unique-violation.js';
import { ACTIVE_JOBS, type ActiveJobs } from './active-jobs.port.js';
import { ConnectionQueryService } from './connection-query.service.js';
import { ConnectionRecordFactory } from './connection-record.factory.js';
import { ConnectionRules } from './connection-rules.js';
import { ConnectionResponseDto } from './dto/connection-response.dto.js';
import type { CreateConnectionDto } from './dto/create-connection.dto.js';
import type { UpdateConnectionDto } from './dto/update-connection.dto.js';

/** Creating, changing, assigning and deleting stored connections. */
@Injectable()
export class ConnectionService {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly queries: ConnectionQueryService,
    private readonly rules: ConnectionRules,
    private readonly records: ConnectionRecordFactory,
    @Inject(ACTIVE_JOBS) private readonly activeJobs: ActiveJobs,
    private readonly clock: Clock,
    private readonly engine: Engine,
  ) {}

  async create(productName: string, dto: CreateConnectionDto): Promise<ConnectionResponseDto> {
    const configName = dto.configName.trim();
    this.rules.assertNotReserved(configName);
    this.rules.assertEngineRules(dto.type, dto.ssl?.mode ?? null, dto.metadata ?? null);
    await this.rules.assertAllowedHost(dto.host);
    const record = this.records.create(productName, configName, dto);
    try {
      await this.connections.insert(record);
    } catch (error) {
      throw isUniqueViolation(error) ? duplicateName(configName, productName) : error;
    }
    return ConnectionResponseDto.from(record);
  }

  /** Merge update (see ConnectionRecordFactory.merge); refused while a pending or processing job uses the connection. */
  async update(id: string, dto: UpdateConnectionDto, principal: Principal): Promise<ConnectionResponseDto> {
    if (Object.values(dto).every((value) => value === undefined)) {
      throw new DatasourceError(FetCode.BadRequest, 'empty request body: send at least one field to change');
    }
    const current = await this.loadStored(id, 'modified', principal);
    await this.assertNoActiveJobs(current, 'update');
    const { record: next, identity } = this.records.merge(current, dto);
    if (next.configName !== current.configName) this.rules.assertNotReserved(next.configName);
    this.rules.assertEngineRules(next.type, next.sslMode, next.metadata);
    if (dto.host !== undefined) await this.rules.assertAllowedHost(next.host);

    try {
      if (!(await this.connections.update(id, next))) throw entityNotFound('connection');
    } catch (error) {
      throw isUniqueViolation(error) ? duplicateName(next.configName, next.productName) : error;
    }
    // Its new version is another pool key already; this only closes the old sessions' sockets now.
    await this.engine.forgetSessions(id);
    return ConnectionResponseDto.from(next, identity);
  }

  async remove(id: string, principal: Principal): Promise<void> {
    const current = await this.loadStored(id, 'deleted', principal);
    await this.assertNoActiveJobs(current, 'delete');
    if (!(await this.connections.softDelete(id, this.clock.now()))) throw entityNotFound('connection');
    await this.engine.forgetSessions(id);
  }

  /** Operators only (the route says so): a product cannot see an unassigned connection. */
  async assign(id: string, productName: string): Promise<ConnectionResponseDto> {
    const current = await this.loadStored(id, 'assigned', ANONYMOUS_OPERATOR);
    let assigned: boolean;
    try {
      assigned = await this.connections.assignProduct(id, productName, this.clock.now());
    } catch (error) {
      throw isUniqueViolation(error) ? duplicateName(current.configName, productName) : error;
    }
    if (!assigned) {
      const now = await this.connections.findById(id);
      if (!now) throw entityNotFound('connection');
      throw new DatasourceError(FetCode.AlreadyAssigned, 'The connection is already assigned to a product and cannot be reassigned.');
    }
    return ConnectionResponseDto.from((await this.connections.findById(id)) as ConnectionRecord);
  }

  private async loadStored(id: string, action: string, principal: Principal): Promise<ConnectionRecord> {
    const loaded = await this.queries.load(id, principal);
    if (loaded.internal) {
      throw new DatasourceError(
        FetCode.InternalDatasource,
        `'${loaded.datasource.configName}' is an internal datasource declared by DATASOURCE_${loaded.datasource.envName}_* variables; it cannot be ${action} through the API`,
      );
    }
    return loaded.record;
  }

  private async assertNoActiveJobs(connection: ConnectionRecord, verb: 'update' | 'delete'): Promise<void> {
    if (await this.activeJobs.usesConnection(connection)) {
      throw new DatasourceError(FetCode.JobInProgress, `cannot ${verb} connection with active jobs`);
    }
  }
}

/** Names are unique within a product: the product is the caller's own, so naming it discloses nothing. */
function duplicateName(configName: string, productName: string | null): DatasourceError {
  const owner = productName ? `product '${productName}'` : 'the unassigned connections';
  return new DatasourceError(
    FetCode.DuplicateConfigName,
    'An entity of type connection with the same unique attributes already exists. Please use different values to avoid conflicts and review the data provided in the request.',
    { fields: { configName: `${owner} already has a connection named '${configName}'` } },
  );
}
