import { Module } from '@nestjs/common';
import { JobModule } from '../job/job.module.js';
import { JobRepository } from '../job/job.repository.js';
import { ACTIVE_JOBS } from './active-jobs.port.js';
import { ConnectionController } from './connection.controller.js';
import { ConnectionProbeService } from './connection-probe.service.js';
import { ConnectionQueryService } from './connection-query.service.js';
import { ConnectionRecordFactory } from './connection-record.factory.js';
import { ConnectionRules } from './connection-rules.js';
import { ConnectionService } from './connection.service.js';
import { ConnectionTestLimit } from './connection-test-limit.js';
import { SchemaValidationService } from './schema-validation.service.js';
import { DatasourceModule } from '../datasource/datasource.module.js';

/** The connection management HTTP API (manager role only). */
@Module({
  imports: [DatasourceModule, JobModule],
  controllers: [ConnectionController],
  providers: [
    ConnectionService,
    ConnectionRules,
    ConnectionRecordFactory,
    ConnectionQueryService,
    ConnectionProbeService,
    ConnectionTestLimit,
    SchemaValidationService,
    { provide: ACTIVE_JOBS, useExisting: JobRepository },
  ],
})
export class ConnectionApiModule {}
