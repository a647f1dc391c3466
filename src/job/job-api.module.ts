import { Module } from '@nestjs/common';
import { DatasourceModule } from '../datasource/datasource.module.js';
import { JobController } from './job.controller.js';
import { JobModule } from './job.module.js';
import { JobService } from './job.service.js';

/** The job HTTP API and producer side (manager role only). */
@Module({ imports: [JobModule, DatasourceModule], controllers: [JobController], providers: [JobService] })
export class JobApiModule {}
