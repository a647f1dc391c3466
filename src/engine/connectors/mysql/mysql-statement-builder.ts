import type { FilterScalar } from '../../request/data-request.js';
import { SqlBuilder } from '../sql/sql-builder.js';

export interface SqlStatement {
  /** SQL with `?` placeholders, for people and tests. */
  readonly text: string;
  readonly values: readonly FilterScalar[];
  /**
   * `text` cut at its placeholders (`text === fragments.join('?')`). Values are spliced in at
   * these cuts, never by searching the text for `?`, which a quoted identifier may contain.
   */
  readonly fragments: readonly string[];
}

/**
 * A placeholder as it stands in the builder's text: a NUL, which no MySQL identifier may contain
 * (U+0000 is the one character quoted names exclude), so build() cuts the text exactly at the
 * placeholders and never at a `?` inside a quoted identifier. Values are kept in the order their
 * placeholders were made, which is their order in the text: SQL is composed left to right.
 */
const CUT = '\u0000';

/** Accumulates SQL text and bound values; build() gives the text with `?` placeholders and its cuts. */
export class MySqlStatementBuilder extends SqlBuilder<FilterScalar> {
  constructor() {
    super(() => CUT);
  }

  build(): SqlStatement {
    const fragments = this.text.split(CUT);
    if (fragments.length !== this.values.length + 1) throw new Error('a MySQL statement holds a NUL outside its placeholders');
    return { text: fragments.join('?'), values: [...this.values], fragments };
  }
}
