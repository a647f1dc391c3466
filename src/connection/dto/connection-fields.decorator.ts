import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsString, Length, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { RawJson } from '../../common/http/raw-json.decorator.js';
import { DATASOURCE_TYPES } from '../../engine/connectors/datasource-type.js';

const CONFIG_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const HOST_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._:-]+)$/;

/**
 * The rules of each connection body field, one home for the create and the update body (and its
 * SSL options), so the two cannot drift; each DTO says itself whether the field must be there.
 * Imported as a namespace: `@Is.Host()`.
 * A field's validators register as a stack written in this order would, the last first:
 * class-validator runs them in that order, and the first that fails is the message answered.
 */
function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return applyDecorators(...decorators.reverse());
}

export const ConfigName = (): PropertyDecorator =>
  stacked(
    IsString(),
    Length(3, 100, { message: 'configName must be between 3 and 100 characters' }),
    Matches(CONFIG_NAME_PATTERN, { message: 'configName can only contain alphanumeric characters, underscores, and hyphens' }),
  );

export const DatasourceType = (): PropertyDecorator =>
  IsIn(DATASOURCE_TYPES, { message: `type must be one of ${DATASOURCE_TYPES.join(', ')}` });

// An empty host fails HOST_PATTERN first, so that is the message an empty one gets.
export const Host = (): PropertyDecorator =>
  stacked(IsString(), MinLength(1), MaxLength(255), Matches(HOST_PATTERN, { message: 'host must be a hostname or an IP address' }));

export const Port = (): PropertyDecorator =>
  stacked(
    IsInt({ message: 'port must be an integer' }),
    Min(1, { message: 'port must be between 1 and 65535' }),
    Max(65535, { message: 'port must be between 1 and 65535' }),
  );

/** databaseName, userName. */
export const NonEmptyName = (): PropertyDecorator =>
  stacked(IsString(), MinLength(1, { message: '$property must not be empty' }), MaxLength(255));

export const SchemaName = (): PropertyDecorator => stacked(IsString(), MinLength(1), MaxLength(255));

export const Password = (): PropertyDecorator => stacked(IsString(), MaxLength(1024));

export const SslMode = (): PropertyDecorator => stacked(IsString(), MaxLength(32));

/** A CA, certificate or private key, PEM. */
export const Pem = (): PropertyDecorator => stacked(IsString(), MaxLength(65536));

/** A nested DTO. IsObject: ValidateNested alone lets an array through, validating each element. */
export const Nested = (type: () => new () => object): PropertyDecorator => stacked(IsObject(), ValidateNested(), Type(type));

export const Metadata = (): PropertyDecorator => stacked(IsObject(), RawJson());
