import { IsDefined } from 'class-validator';
import { ApiProperty } from '../../common/http/api-docs.js';
import { PageOf } from '../../common/http/page.dto.js';
import { RawJson } from '../../common/http/raw-json.decorator.js';
import { CURSOR_KINDS, type CursorKind } from '../../engine/incremental/cursor-range.js';
import type { CursorMark, StreamMarks } from '../../engine/request/incremental-request.js';
import type { StreamRecord } from '../stream.entity.js';

/** Where a table of a stream stands (docs/incremental.md, "Cursor types"). */
export class StreamMarkDto implements CursorMark {
  @ApiProperty({ example: 'id', description: 'The cursor column.' }) column!: string;
  @ApiProperty({ enum: CURSOR_KINDS, example: 'integer' }) type!: CursorKind;
  @ApiProperty({
    example: '180',
    description: 'Rows up to this value (inclusive) were delivered; as the result renders the column (decimals and integers exact).',
  })
  value!: string;
}

const MARKS_EXAMPLE = { pg_source: { 'accounting.invoices': { column: 'id', type: 'integer', value: '180' } } };
/** marks[configName][tableKey] = {column, type, value}: a map of maps, as a generated client needs it described. */
const MARKS_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: { $ref: '#/components/schemas/StreamMarkDto' } },
} as const;

export class StreamDto {
  @ApiProperty({ example: 'reporter', description: 'The product the stream belongs to (its jobs’ metadata.source).' }) product!: string;
  @ApiProperty({ example: 'invoices' }) name!: string;
  @ApiProperty({
    ...MARKS_SCHEMA,
    example: MARKS_EXAMPLE,
    description: 'tables[configName][table] (the table by its result key): each table’s committed mark.',
  })
  tables!: Record<string, Record<string, StreamMarkDto>>;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    example: '0190f3c2-0000-7000-8000-000000000000',
    description: 'The job whose completion last committed the marks; null once they were set by PUT …/marks.',
  })
  lastJobId!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;

  static from(stream: StreamRecord): StreamDto {
    return {
      product: stream.productName,
      name: stream.name,
      tables: stream.marks,
      lastJobId: stream.lastJobId,
      createdAt: stream.createdAt.toISOString(),
      updatedAt: stream.updatedAt.toISOString(),
    };
  }
}

export class StreamPageDto extends PageOf(StreamDto, {
  example: 3,
  description: 'Number of streams matching the filter (and visible to the credential).',
}) {}

/** PUT …/marks: checked by the engine's own check of marks (markProblems), which names each member. */
export class PutMarksDto {
  @ApiProperty({
    ...MARKS_SCHEMA,
    example: MARKS_EXAMPLE,
    description: 'marks[configName][table] = {column, type, value}, the table by its result key: the stream’s marks, replaced wholesale.',
  })
  @IsDefined()
  @RawJson()
  marks!: StreamMarks;
}
