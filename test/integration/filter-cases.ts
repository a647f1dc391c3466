import type { FilterCondition } from '../../src/engine/request/data-request.js';

/**
 * The differential filter dataset (docs/api.md, "Filters"): numbers, decimals, text with % and _,
 * NULLs, dates, timestamps and booleans. Every engine loads these rows and must return, for every
 * case, the ids written next to it.
 */
export interface FilterItem {
  readonly id: number;
  readonly label: string | null;
  /** decimal(10,2) as exact text */
  readonly amount: string | null;
  readonly qty: number | null;
  readonly active: boolean | null;
  /** YYYY-MM-DD */
  readonly day: string | null;
  /** timestamp without time zone, YYYY-MM-DD HH:MM:SS[.fff] */
  readonly at: string | null;
  readonly category: string | null;
}

export const FILTER_ITEMS: readonly FilterItem[] = [
  { id: 1, label: 'Alpha', amount: '10.50', qty: 5, active: true, day: '2026-01-01', at: '2026-01-01 10:00:00', category: 'a' },
  { id: 2, label: 'alpha 50%', amount: '0.00', qty: 0, active: false, day: '2026-01-15', at: '2026-01-15 23:59:59.999', category: 'b' },
  { id: 3, label: 'Beta_1', amount: '-3.25', qty: 12, active: true, day: '2026-02-01', at: '2026-02-01 00:00:00', category: 'a' },
  { id: 4, label: 'beta-1', amount: '100.00', qty: null, active: null, day: '2026-02-28', at: null, category: null },
  { id: 5, label: 'Gamma%', amount: '99.99', qty: 7, active: false, day: null, at: '2026-03-10 12:30:00', category: 'c' },
  { id: 6, label: 'gamma', amount: null, qty: 3, active: true, day: '2026-03-31', at: '2026-03-31 23:59:59', category: 'b' },
  { id: 7, label: '100%_sure', amount: '1000.00', qty: 100, active: true, day: '2026-04-01', at: '2026-04-01 00:00:00.5', category: 'c' },
  { id: 8, label: "O'Brien", amount: '7.77', qty: 7, active: false, day: '2026-04-15', at: '2026-04-15 08:00:00', category: 'a' },
  { id: 9, label: '', amount: '0.01', qty: -1, active: null, day: '2026-05-01', at: '2026-05-01 00:00:01', category: '' },
  {
    id: 10,
    label: 'delta\\slash',
    amount: '50.50',
    qty: 50,
    active: true,
    day: '2026-12-31',
    at: '2026-12-31 23:59:59.999',
    category: 'd',
  },
];

export interface FilterCase {
  readonly name: string;
  readonly filters: Record<string, FilterCondition>;
  readonly ids: readonly number[];
}

/** `like` patterns use SQL semantics everywhere: `%`, `_`, and `\` to take either literally. */
export const FILTER_CASES: readonly FilterCase[] = [
  { name: 'eq text (case-sensitive)', filters: { label: { eq: ['Alpha'] } }, ids: [1] },
  { name: 'eq several texts', filters: { label: { eq: ['Alpha', 'gamma'] } }, ids: [1, 6] },
  { name: 'eq empty text is not NULL', filters: { label: { eq: [''] } }, ids: [9] },
  { name: 'eq text with a quote', filters: { label: { eq: ["O'Brien"] } }, ids: [8] },
  { name: 'eq text with a backslash', filters: { label: { eq: ['delta\\slash'] } }, ids: [10] },
  { name: 'eq decimal given as a string', filters: { amount: { eq: ['0.00'] } }, ids: [2] },
  { name: 'eq decimal given as a number', filters: { amount: { eq: [0] } }, ids: [2] },
  { name: 'eq integer', filters: { qty: { eq: [7] } }, ids: [5, 8] },
  { name: 'eq true', filters: { active: { eq: [true] } }, ids: [1, 3, 6, 7, 10] },
  { name: 'eq false', filters: { active: { eq: [false] } }, ids: [2, 5, 8] },
  { name: 'eq [null] on text', filters: { category: { eq: [null] } }, ids: [4] },
  { name: 'eq [null] on boolean', filters: { active: { eq: [null] } }, ids: [4, 9] },
  { name: 'eq [null] on decimal', filters: { amount: { eq: [null] } }, ids: [6] },
  { name: 'ne [null] on text', filters: { category: { ne: [null] } }, ids: [1, 2, 3, 5, 6, 7, 8, 9, 10] },
  { name: 'ne one value leaves NULLs out', filters: { qty: { ne: [7] } }, ids: [1, 2, 3, 6, 7, 9, 10] },
  { name: 'ne several values', filters: { qty: { ne: [7, 0] } }, ids: [1, 3, 6, 7, 9, 10] },
  { name: 'ne true', filters: { active: { ne: [true] } }, ids: [2, 5, 8] },
  { name: 'gt decimal string', filters: { amount: { gt: ['99.99'] } }, ids: [4, 7] },
  { name: 'gte decimal number', filters: { amount: { gte: [99.99] } }, ids: [4, 5, 7] },
  { name: 'lt zero', filters: { amount: { lt: [0] } }, ids: [3] },
  { name: 'lte decimal string', filters: { amount: { lte: ['0.01'] } }, ids: [2, 3, 9] },
  { name: 'gt negative integer', filters: { qty: { gt: [-1] } }, ids: [1, 2, 3, 5, 6, 7, 8, 10] },
  { name: 'between integers, inclusive', filters: { qty: { between: [0, 7] } }, ids: [1, 2, 5, 6, 8] },
  { name: 'between decimals, inclusive', filters: { amount: { between: ['-5', '10.50'] } }, ids: [1, 2, 3, 8, 9] },
  { name: 'between one value', filters: { amount: { between: ['100', '100'] } }, ids: [4] },
  { name: 'in texts', filters: { category: { in: ['a', 'c'] } }, ids: [1, 3, 5, 7, 8] },
  { name: 'in with null matches NULL too', filters: { category: { in: ['b', null] } }, ids: [2, 4, 6] },
  { name: 'in integers, one missing', filters: { qty: { in: [5, 100, 9999] } }, ids: [1, 7] },
  { name: 'nin texts leaves NULLs out', filters: { category: { nin: ['a', 'b'] } }, ids: [5, 7, 9, 10] },
  { name: 'nin with null', filters: { category: { nin: ['a', null] } }, ids: [2, 5, 6, 7, 9, 10] },
  { name: 'nin one integer', filters: { qty: { nin: [7] } }, ids: [1, 2, 3, 6, 7, 9, 10] },
  { name: 'like exact', filters: { label: { like: ['Alpha'] } }, ids: [1] },
  { name: 'like prefix is case-sensitive', filters: { label: { like: ['alpha%'] } }, ids: [2] },
  { name: 'like suffix', filters: { label: { like: ['%a'] } }, ids: [1, 6] },
  { name: 'like _ matches one character', filters: { label: { like: ['beta_1'] } }, ids: [4] },
  { name: 'like _ matches a literal _ too', filters: { label: { like: ['Beta_1'] } }, ids: [3] },
  { name: 'like escaped % is literal', filters: { label: { like: ['%50\\%'] } }, ids: [2] },
  { name: 'like escaped % and _', filters: { label: { like: ['100\\%\\_%'] } }, ids: [7] },
  { name: 'like % matches everything not NULL', filters: { label: { like: ['%'] } }, ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
  { name: 'like empty pattern', filters: { label: { like: [''] } }, ids: [9] },
  { name: 'date gte', filters: { day: { gte: ['2026-03-31'] } }, ids: [6, 7, 8, 9, 10] },
  { name: 'date between, inclusive', filters: { day: { between: ['2026-01-15', '2026-02-28'] } }, ids: [2, 3, 4] },
  { name: 'date lt', filters: { day: { lt: ['2026-01-15'] } }, ids: [1] },
  { name: 'date eq', filters: { day: { eq: ['2026-04-01'] } }, ids: [7] },
  { name: 'timestamp gt with seconds', filters: { at: { gt: ['2026-03-31 23:59:58'] } }, ids: [6, 7, 8, 9, 10] },
  { name: 'timestamp between two dates is midnight to midnight', filters: { at: { between: ['2026-01-01', '2026-01-15'] } }, ids: [1] },
  { name: 'timestamp lte with a fraction, ISO form', filters: { at: { lte: ['2026-04-01T00:00:00.5'] } }, ids: [1, 2, 3, 5, 6, 7] },
  { name: 'timestamp eq with milliseconds', filters: { at: { eq: ['2026-12-31 23:59:59.999'] } }, ids: [10] },
  { name: 'timestamp gte ISO', filters: { at: { gte: ['2026-04-15T08:00:00'] } }, ids: [8, 9, 10] },
  { name: 'two operators on one field', filters: { qty: { gte: [5], lte: [50] } }, ids: [1, 3, 5, 8, 10] },
  { name: 'two fields', filters: { amount: { gt: [0] }, active: { eq: [true] } }, ids: [1, 7, 10] },
  { name: 'three fields', filters: { category: { in: ['a', 'b', 'c'] }, day: { lt: ['2026-03-01'] }, qty: { ne: [0] } }, ids: [1, 3] },
  { name: 'eq and ne together', filters: { qty: { eq: [7] }, label: { ne: ['Gamma%'] } }, ids: [8] },
];

/**
 * The eq/ne cases the MySQL and PostgreSQL filter suites share, on their five `items` rows where
 * row 3 has no `n`: [case, filters, ids kept].
 */
export const NULL_AWARE_EQ_NE_CASES: [string, Record<string, FilterCondition>, number[]][] = [
  ['eq, one value', { n: { eq: [20] } }, [2]],
  ['eq, several values (IN)', { n: { eq: [10, 40] } }, [1, 4]],
  ['eq [null] (IS NULL)', { n: { eq: [null] } }, [3]],
  ['ne [null] (IS NOT NULL)', { n: { ne: [null] } }, [1, 2, 4, 5]],
  ['ne, one value (NULL rows do not match)', { n: { ne: [10] } }, [2, 4, 5]],
  ['ne, several values (NOT IN)', { n: { ne: [10, 20] } }, [4, 5]],
];
