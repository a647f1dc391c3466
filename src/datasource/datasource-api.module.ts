import { Module } from '@nestjs/common';
import { ConnectionController } from './connection.controller.js';
import { DatasourceModule } from './datasource.module.js';

/** The connection management HTTP API (manager role only). */
@Module({ imports: [DatasourceModule], controllers: [ConnectionController] })
export class DatasourceApiModule {}
