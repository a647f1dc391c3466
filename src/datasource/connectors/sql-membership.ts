import type { FilterScalar } from '../../job/data-request.js';

/**
 * `eq`/`in` (negated: `ne`/`nin`) over a list that may hold nulls, as every SQL engine renders it:
 * one value `=`/`<>`, several `IN`/`NOT IN`, and a `null` in the list matching (or excluding) NULL.
 * `bind` turns a value into the engine's placeholder expression.
 */
export function membershipPredicate(
  subject: string,
  list: readonly FilterScalar[],
  negated: boolean,
  bind: (value: Exclude<FilterScalar, null>) => string,
): string {
  const present = list.filter((v): v is Exclude<FilterScalar, null> => v !== null);
  const parts: string[] = [];
  if (present.length === 1) parts.push(`${subject} ${negated ? '<>' : '='} ${bind(present[0])}`);
  else if (present.length > 1) parts.push(`${subject} ${negated ? 'NOT IN' : 'IN'} (${present.map(bind).join(', ')})`);
  if (present.length < list.length) parts.push(`${subject} ${negated ? 'IS NOT NULL' : 'IS NULL'}`);
  return parts.length === 1 ? parts[0] : '(' + parts.join(negated ? ' AND ' : ' OR ') + ')';
}
