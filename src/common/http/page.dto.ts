import { ApiProperty } from './api-docs.js';

/** The total of a list's answer, as the API document shows it. */
export interface PageTotalDoc {
  readonly example: number;
  readonly description: string;
}

/**
 * The answer of a list route, one page of `item`: `class JobPageDto extends PageOf(JobSummaryDto, …) {}`.
 * The subclass names the schema in the API document; the properties are these, in this order.
 */
export function PageOf<T>(item: new () => T, total: PageTotalDoc) {
  class Page {
    @ApiProperty({ type: [item] }) items!: T[];
    @ApiProperty({ example: 1 }) page!: number;
    @ApiProperty({ example: 10 }) limit!: number;
    @ApiProperty(total) total!: number;
  }
  return Page;
}
