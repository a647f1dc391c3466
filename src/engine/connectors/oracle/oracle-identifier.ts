import type { TableInfo } from '../shared/engine-connector.js';

/**
 * An Oracle identifier, always double-quoted, so the name is used exactly as the catalog spells
 * it (mixed case, reserved words, spaces) rather than upper-cased by the parser. Oracle forbids
 * `"` inside identifiers; doubling it anyway means a bad name can only fail, never end the quote.
 * Names only reach here after validation against the discovered schema.
 */
export function quoteIdent(name: string): string {
  return '"' + name.replaceAll('"', '""') + '"';
}

/** `"OWNER"."TABLE"`; every Oracle table has an owner, but a snapshot without one is tolerated. */
export function qualifiedName(table: Pick<TableInfo, 'schema' | 'name'>): string {
  return table.schema === null ? quoteIdent(table.name) : quoteIdent(table.schema) + '.' + quoteIdent(table.name);
}
