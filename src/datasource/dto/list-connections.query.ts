import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { DATASOURCE_TYPES, DatasourceType } from '../datasource-type.js';

export const MAX_PAGE_LIMIT = 100;

export class ListConnectionsQuery {
  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsOptional() @Type(() => Number) @IsInt({ message: 'page must be an integer' }) @Min(1, { message: 'page must be greater than 0' })
  page?: number;

  @ApiPropertyOptional({ default: 10, minimum: 1, maximum: MAX_PAGE_LIMIT })
  @IsOptional() @Type(() => Number) @IsInt({ message: 'limit must be an integer' }) @Min(1, { message: 'limit must be greater than 0' })
  @Max(MAX_PAGE_LIMIT, { message: `limit must not exceed ${MAX_PAGE_LIMIT}` })
  limit?: number;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @IsOptional() @IsIn(['asc', 'desc', 'ASC', 'DESC'], { message: 'sortOrder must be asc or desc' })
  sortOrder?: string;

  @ApiPropertyOptional({ enum: DatasourceType })
  @IsOptional() @IsIn(DATASOURCE_TYPES, { message: `type must be one of ${DATASOURCE_TYPES.join(', ')}` })
  type?: DatasourceType;
}
