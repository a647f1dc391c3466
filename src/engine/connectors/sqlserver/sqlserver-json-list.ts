import type { SqlBinding, SqlParamType } from './sqlserver-parameters.js';

/**
 * SQL Server takes at most 2,100 parameters in one call, and sp_executesql uses two of them
 * (@stmt, @params): a statement with more values fails as a whole.
 */
export const MAX_STATEMENT_PARAMS = 2_098;

/**
 * How a value held in OPENJSON's `[value]` column (nvarchar(max), the JSON scalar's text) becomes
 * what its own parameter gave, CAST included:
 * - text without a CAST goes through varbinary: a CAST from a non-string type yields a
 *   coercible-default string, like a parameter, so the compared column keeps its collation. The
 *   bare `[value]` is a column reference (implicit collation): against a column of another
 *   collation SQL Server would refuse the comparison ("cannot resolve the collation conflict");
 * - bit and float: CAST of the JSON scalar (`1`/`0`; the number's shortest round-trip text);
 * - varbinary: hex text, CONVERT style 2 (exact bytes).
 */
function valueExpression(type: SqlParamType, cast: string | undefined): string {
  if (cast !== undefined) return `CAST([value] AS ${cast})`;
  switch (type) {
    case 'nvarchar':
      return 'CAST(CAST([value] AS varbinary(max)) AS nvarchar(max))';
    case 'bit':
      return 'CAST([value] AS bit)';
    case 'float':
      return 'CAST([value] AS float)';
    case 'varbinary':
      return 'CONVERT(varbinary(max), [value], 2)';
  }
}

/** One array element: the text `valueExpression` reads back as the bound value. */
function jsonElement(binding: SqlBinding): string {
  const { value } = binding;
  if (Buffer.isBuffer(value)) return JSON.stringify(value.toString('hex'));
  if (typeof value === 'boolean') return value ? '1' : '0';
  return JSON.stringify(value);
}

/**
 * Two or more values, as one JSON parameter per way of reading them back (one for any list on
 * all but binary columns, whatever its length): `subject IN (SELECT … FROM OPENJSON(@pN))`, or
 * NOT IN. The bindings hold no null, so IN and NOT IN over the subqueries mean what they mean
 * over a list. OPENJSON needs database compatibility level 130 (SQL Server 2016) or above.
 */
export function openJsonMembership(
  subject: string,
  bindings: readonly SqlBinding[],
  negated: boolean,
  push: (type: SqlParamType, value: string) => string,
): string {
  // A bit bound as bit and a text CAST to bit read back alike: they share a parameter.
  const groups = new Map<string, SqlBinding[]>();
  for (const binding of bindings) {
    const expression = valueExpression(binding.type, binding.cast);
    const group = groups.get(expression);
    if (group === undefined) groups.set(expression, [binding]);
    else group.push(binding);
  }
  const tests = [...groups].map(([expression, group]) => {
    const parameter = push('nvarchar', '[' + group.map(jsonElement).join(',') + ']');
    return `${subject} ${negated ? 'NOT IN' : 'IN'} (SELECT ${expression} FROM OPENJSON(${parameter}))`;
  });
  return tests.length === 1 ? tests[0] : '(' + tests.join(negated ? ' AND ' : ' OR ') + ')';
}
