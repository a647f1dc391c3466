import { ApiProperty } from '../../common/http/api-docs.js';
import { CURSOR_KINDS, type CursorKind } from '../../engine/incremental/cursor-range.js';
import type { JobIncremental, JobTableRange } from '../job.entity.js';

/** One cursor table's range, as `incremental.tables[configName][table]` of a job and of its job.completed event. */
export class TableRangeDto implements JobTableRange {
  @ApiProperty({ example: 'id', description: 'The cursor column.' }) column!: string;
  @ApiProperty({ enum: CURSOR_KINDS, example: 'integer' }) type!: CursorKind;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '120',
    description: 'The lower bound, as the result renders the column: the mark the read started above, or `initial`; null: from the start.',
  })
  from!: string | null;
  @ApiProperty({ example: false, description: 'True when `from` is a first run’s `initial` (inclusive) rather than a mark (exclusive).' })
  fromInclusive!: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '180',
    description:
      'The mark after the read (its upper bound; `from`’s mark when nothing new was there). Null until the job completed, or while no row has a cursor.',
  })
  to!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 60, description: 'Rows read in the range; null until the job completed.' })
  rows!: number | null;
}

const TABLES_EXAMPLE = {
  pg_source: { 'accounting.invoices': { column: 'id', type: 'integer', from: '120', fromInclusive: false, to: '180', rows: 60 } },
};

/** A job's stream and its ranges (docs/incremental.md). */
export class JobIncrementalDto {
  @ApiProperty({ example: 'invoices' }) stream!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { $ref: '#/components/schemas/TableRangeDto' } },
    example: TABLES_EXAMPLE,
    description:
      'tables[configName][table]: each cursor table’s range; before completion `from` as planned, `to` and `rows` null. Rows outside a range were not read.',
  })
  tables!: Record<string, Record<string, TableRangeDto>>;

  static from(incremental: JobIncremental): JobIncrementalDto {
    return { stream: incremental.stream, tables: (incremental.tables ?? {}) as Record<string, Record<string, TableRangeDto>> };
  }
}
