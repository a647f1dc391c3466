import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { FetCode } from '../../engine/errors/fet-code.js';
import { RequestValidationError } from '../errors/request-errors.js';
import { validationExceptionFactory } from '../errors/validation-exception.factory.js';
import { transformableBody } from './raw-json.decorator.js';

/** Member names class-transformer never copies onto a DTO instance. */
const UNCOPIED_DTO_MEMBERS = ['constructor', 'prototype'] as const;

/**
 * Nest's ValidationPipe, minus its silent edits of the body. Nest deletes every `__proto__`,
 * `prototype` and `constructor` member at any depth, so a table, a filter field or a metadata
 * key of that name disappeared without a word. Here `__proto__` was already refused by the
 * body-limits guard; `constructor` and `prototype` stay, as ordinary names: the request
 * language looks names up as own properties only, and nothing merges request objects deeply.
 * class-transformer cannot take them (see transformableBody); `@RawJson()` members keep them.
 * Where a DTO is expected, such a member is an unknown field, and is refused like any other.
 */
export class RequestValidationPipe extends ValidationPipe {
  protected override stripProtoKeys(): void {
    // Kept as parsed; see the class comment.
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body') return super.transform(value, metadata);
    const transformable = transformableBody(value);
    const result: unknown = await super.transform(transformable, metadata);
    // A body that is not validated comes back as given: hand on the parsed one.
    const entity = result === transformable ? value : result;
    const unknown = uncopiedMembers(value, entity);
    if (unknown.length > 0) {
      const message = `unknown field(s) in request: ${unknown.join(', ')}`;
      throw new RequestValidationError(FetCode.BadRequest, message, {
        fields: Object.fromEntries(unknown.map((path) => [path, `${path} is not a known field`])),
      });
    }
    return entity;
  }
}

const isDtoInstance = (value: unknown): value is object => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype !== null && prototype !== Object.prototype;
};

/** Paths of `constructor`/`prototype` members of the raw body at positions that became DTOs. */
function uncopiedMembers(raw: unknown, entity: unknown): string[] {
  const found: string[] = [];
  const stack: Array<{ raw: unknown; entity: unknown; path: string }> = [{ raw, entity, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (!isDtoInstance(item.entity) || item.raw === null || typeof item.raw !== 'object') continue;
    const source = item.raw as Record<string, unknown>;
    const prefix = item.path === '' ? '' : `${item.path}.`;
    for (const name of UNCOPIED_DTO_MEMBERS) if (Object.hasOwn(source, name)) found.push(`${prefix}${name}`);
    for (const [key, child] of Object.entries(item.entity)) {
      if (isDtoInstance(child) && Object.hasOwn(source, key)) stack.push({ raw: source[key], entity: child, path: `${prefix}${key}` });
    }
  }
  return found.sort();
}

/**
 * The pipe every route's body, query and path parameters go through (create-app.ts): DTOs built
 * and transformed, unknown fields and values refused, each refusal a FET error naming the field.
 */
export function globalValidationPipe(): RequestValidationPipe {
  return new RequestValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    exceptionFactory: validationExceptionFactory,
  });
}
