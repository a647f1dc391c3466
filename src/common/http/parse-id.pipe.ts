import { Injectable, type PipeTransform } from '@nestjs/common';
import { FetCode } from '../../engine/errors/fet-code.js';
import { RequestValidationError } from '../errors/request-errors.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path ids are UUIDs; anything else is a 400 naming the entity, before any lookup. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, string> {
  constructor(private readonly entity: 'connection' | 'job' | 'api key' | 'webhook') {}

  transform(value: string): string {
    if (!UUID_PATTERN.test(value)) throw new RequestValidationError(FetCode.InvalidPathId, `invalid ${this.entity} id`);
    return value.toLowerCase();
  }
}
