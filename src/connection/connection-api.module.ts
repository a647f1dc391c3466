import { Module } from '@nestjs/common';
import { JobModule } from '../job/job.module.js';
import { JobRepository } from '../job/job.repository.js';
import { ACTIVE_JOBS } from './active-jobs.port.js';
import { ConnectionController } from './connection.controller.js';
import { ConnectionProbeService } from './connection-probe.service.js';
import { ConnectionQueryService } from './connection-query.service.js';
import { ConnectionService } from './connection.service.js';
import { DatasourceModule } from '../datasource/datasource.module.js';

/** The connection management HTTP API (manager role only). */
@Module({
  imports: [DatasourceModule, JobModule],
  controllers: [ConnectionController],
  providers: [ConnectionService, ConnectionQueryService, ConnectionProbeService, { provide: ACTIVE_JOBS, useExisting: JobRepository }],
})
export class ConnectionApiModule {}
