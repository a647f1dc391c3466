import type { FilterScalar } from '../../request/data-request.js';
import { SqlBuilder } from '../sql/sql-builder.js';

/**
 * A string bound as CHAR / NCHAR rather than VARCHAR2: Oracle then compares it with a CHAR column
 * using blank-padded semantics, so `'ab'` matches a CHAR(5) value `'ab   '` (as PostgreSQL's
 * bpchar comparison does). The session maps it to the driver's typed bind.
 */
export interface OracleCharBind {
  readonly charType: 'char' | 'nchar';
  readonly value: string;
}

export type OracleBind = FilterScalar | OracleCharBind;

export interface SqlStatement {
  /** SQL with positional `:1…:n` placeholders. */
  readonly text: string;
  readonly binds: readonly OracleBind[];
}

/** Accumulates SQL text and bound values; each bind gets the next `:n`. */
export class OracleStatementBuilder extends SqlBuilder<OracleBind> {
  constructor() {
    super((position) => ':' + position);
  }

  /** A new, empty builder: to measure what a fragment would bind without adding it here. */
  scratch(): OracleStatementBuilder {
    return new OracleStatementBuilder();
  }

  build(): SqlStatement {
    return { text: this.text, binds: [...this.values] };
  }
}
