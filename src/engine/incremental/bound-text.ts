import { JsonKind, scanRows } from '../formats/json-row-scanner.js';

/**
 * The text of the one value of a rendered one-column row (`{"col":…}`), as a mark keeps it: a
 * string's content, a number's literal exactly as written (a bigint or a decimal past 2^53 must
 * not pass through a double), null for null. Anything else (an object, an array) as its JSON.
 */
export function renderedValueText(json: Buffer): string | null {
  let value: string | null = null;
  scanRows(json, (row) => {
    if (row.count === 0) return;
    const kind = row.kind(0);
    if (kind === JsonKind.Null) value = null;
    else if (kind === JsonKind.String) value = row.text(0);
    else value = row.raw(0);
  });
  return value;
}

/**
 * The mark text of one value's rendered JSON (what a column encoder writes): a string's content,
 * anything else its literal as written (exact digits); null for JSON null.
 */
export function renderedJsonText(json: string): string | null {
  if (json === 'null') return null;
  return json.startsWith('"') ? (JSON.parse(json) as string) : json;
}
