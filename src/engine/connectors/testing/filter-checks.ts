import { expect, it } from 'vitest';
import type { FilterCondition } from '../../request/data-request.js';

/** A WHERE builder as a filter spec drives it: the SQL text and the values bound beside it. */
export type WhereOf = (filters: Record<string, FilterCondition>) => { sql: string; values: readonly unknown[] };

/** The check that filter values are bound, never spliced into the SQL, registered in the caller's describe. */
export function valuesStayOutOfSqlCheck(where: WhereOf, column: string): void {
  it('never puts a value into the SQL text', () => {
    const { sql, values } = where({ [column]: { eq: ["'; DROP TABLE x; --"], like: ["%'%"] } });
    expect(sql).not.toContain('DROP');
    expect(values).toEqual(["'; DROP TABLE x; --", "%'%"]);
  });
}
