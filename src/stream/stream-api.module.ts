import { Module } from '@nestjs/common';
import { StreamController } from './stream.controller.js';
import { StreamModule } from './stream.module.js';
import { StreamService } from './stream.service.js';

/**
 * The stream routes (manager role). Registered before the job routes: `/v1/fetcher/streams` would
 * otherwise be taken for `GET /v1/fetcher/{id}` and refused as a job id.
 */
@Module({ imports: [StreamModule], controllers: [StreamController], providers: [StreamService] })
export class StreamApiModule {}
