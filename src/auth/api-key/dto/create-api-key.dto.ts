import { ApiProperty } from '../../../common/http/api-docs.js';
import { Transform } from 'class-transformer';
import { IsDefined, IsString, Length, Matches } from 'class-validator';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'reporter', description: 'The product the key acts for; stored lower-case.' })
  @IsDefined()
  @IsString()
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @Matches(/^[a-z0-9_-]{1,100}$/, { message: 'productName must be 1-100 characters of [A-Za-z0-9_-]' })
  productName!: string;

  @ApiProperty({ example: 'reporting-service production', description: 'What the key is for, to recognise it in the list.' })
  @IsDefined()
  @IsString()
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @Length(1, 100, { message: 'name must be between 1 and 100 characters' })
  @Matches(/^[^\p{Cc}]*$/u, { message: 'name must not contain control characters' })
  name!: string;
}
