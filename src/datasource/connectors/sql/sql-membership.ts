import type { FilterScalar } from '../../../request/data-request.js';

export type PresentScalar = Exclude<FilterScalar, null>;

/** `subject IN (…)` / `NOT IN (…)` with one placeholder per value. */
export function inList(
  subject: string,
  values: readonly PresentScalar[],
  negated: boolean,
  bind: (value: PresentScalar) => string,
): string {
  return `${subject} ${negated ? 'NOT IN' : 'IN'} (${values.map(bind).join(', ')})`;
}

/**
 * `eq`/`in` (negated: `ne`/`nin`) over a list that may hold nulls, as every SQL engine renders it:
 * one value `=`/`<>`, several `IN`/`NOT IN`, and a `null` in the list matching (or excluding) NULL.
 * `bind` turns a value into the engine's placeholder expression. `several` renders the test of two
 * or more values; an engine replaces the IN list with a bound array or document there, which
 * must keep IN's meaning: no null among the values it gets, and a NULL subject matches neither
 * the test nor its negation.
 */
export function membershipPredicate(
  subject: string,
  list: readonly FilterScalar[],
  negated: boolean,
  bind: (value: PresentScalar) => string,
  several: (values: readonly PresentScalar[]) => string = (values) => inList(subject, values, negated, bind),
): string {
  const present = list.filter((v): v is PresentScalar => v !== null);
  const parts: string[] = [];
  if (present.length === 1) parts.push(`${subject} ${negated ? '<>' : '='} ${bind(present[0])}`);
  else if (present.length > 1) parts.push(several(present));
  if (present.length < list.length) parts.push(`${subject} ${negated ? 'IS NOT NULL' : 'IS NULL'}`);
  return parts.length === 1 ? parts[0] : '(' + parts.join(negated ? ' AND ' : ' OR ') + ')';
}
