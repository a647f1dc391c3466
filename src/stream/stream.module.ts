import { Module } from '@nestjs/common';
import { StreamRepository } from './stream.repository.js';

/**
 * Stream records: what job submission reads the marks from, what the worker commits them with, and
 * what the stream routes manage. Shared by both roles; the routes are StreamApiModule's.
 */
@Module({ providers: [StreamRepository], exports: [StreamRepository] })
export class StreamModule {}
