import type { TableInfo } from '../shared/engine-connector.js';

/**
 * A PostgreSQL identifier, always double-quoted with `"` doubled, so mixed case, reserved words
 * and special characters are kept exactly. Names only reach here after schema validation.
 */
export function quoteIdent(name: string): string {
  return '"' + name.replaceAll('"', '""') + '"';
}

/** `"schema"."table"`; PostgreSQL tables always have a schema. */
export function qualifiedName(table: Pick<TableInfo, 'schema' | 'name'>): string {
  return table.schema === null ? quoteIdent(table.name) : quoteIdent(table.schema) + '.' + quoteIdent(table.name);
}
