const BOOLEAN_TEXT: ReadonlyMap<string, boolean> = new Map([
  ...['true', 't', 'yes', 'y', 'on', '1'].map((text): [string, boolean] => [text, true]),
  ...['false', 'f', 'no', 'n', 'off', '0'].map((text): [string, boolean] => [text, false]),
]);

/**
 * A filter's text as the boolean PostgreSQL reads it (`'yes'`, `' OFF '`, `'t'`, …), for engines
 * whose boolean or bit column would read it otherwise; undefined when it is no boolean text.
 */
export function readBooleanText(text: string): boolean | undefined {
  return BOOLEAN_TEXT.get(text.trim().toLowerCase());
}
