import { applyDecorators } from '@nestjs/common';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import { IsDefined, IsOptional } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from './api-docs.js';

/**
 * A body member that the API document marks required and validation requires, in one decorator so
 * the two cannot disagree. Its rules follow as decorators of their own.
 */
export const RequiredField = (doc: ApiPropertyOptions): PropertyDecorator => applyDecorators(ApiProperty(doc), IsDefined());

/** A body member that the API document marks optional; validation skips it when absent or null. */
export const OptionalField = (doc: ApiPropertyOptions): PropertyDecorator => applyDecorators(ApiPropertyOptional(doc), IsOptional());
